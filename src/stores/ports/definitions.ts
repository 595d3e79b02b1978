// Stored resource definitions (the authorization model), versioned.
import type { Definition } from '../../engine/model.js';
import type { ListQuery, Page } from './paging.js';

export interface DefinitionRecord extends Definition {
  _id: string;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface DefinitionStore {
  definitions(): Promise<DefinitionRecord[]>;
  findDefinition(idOrName: string): Promise<DefinitionRecord | null>;
  listDefinitions(q: ListQuery): Promise<Page<DefinitionRecord>>;
  /** Writes version `version` only if the stored one is lower (or absent): returns the stored record. */
  saveDefinition(def: Definition, version: number): Promise<{ record: DefinitionRecord; written: boolean }>;
  deleteDefinition(name: string): Promise<DefinitionRecord | null>;
}
