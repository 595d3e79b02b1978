// Paged listings: the query a list route takes and the page it answers.
export interface ListQuery {
  skip: number;
  limit: number;
  sort?: string;
  search?: string;
}
export interface Page<T> {
  items: T[];
  count: number;
}
