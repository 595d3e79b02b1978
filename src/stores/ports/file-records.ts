// The records of stored files (name, size, type, where their bytes are); who may see them is in the tuples.
export interface FileRecord {
  _id: string;
  name: string;
  size: number;
  mimeType: string;
  folder: string | null;
  isPublic: boolean;
  createdAt: string;
  updatedAt: string;
  /** The provider that holds the bytes and their key there (the key changes when the content is replaced). */
  provider: string;
  key: string;
}

export interface FileRecordStore {
  insert(record: FileRecord): Promise<void>;
  get(id: string): Promise<FileRecord | null>;
  getMany(ids: string[]): Promise<FileRecord[]>;
  /** Sets fields; the record after the change, or null when it is gone. */
  update(id: string, set: Partial<Omit<FileRecord, '_id'>>): Promise<FileRecord | null>;
  delete(id: string): Promise<FileRecord | null>;
}
