// proto3 maps cannot hold lists directly: `map<string, Names>` on the wire, `Record<string, string[]>` everywhere else.
export type NameLists = Record<string, string[]>;
export type WireNames = Record<string, { names?: string[] }>;

export const toNames = (m: NameLists | undefined): Record<string, { names: string[] }> => Object.fromEntries(Object.entries(m ?? {}).map(([k, v]) => [k, { names: v }]));
export const fromNames = (m: WireNames | undefined): NameLists => Object.fromEntries(Object.entries(m ?? {}).map(([k, v]) => [k, v.names ?? []]));
