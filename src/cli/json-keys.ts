// Keys given twice in one JSON object: JSON.parse keeps the last silently, so a second "checks" would drop the first
// list of assertions from a model test without a word. One linear pass over text JSON.parse has already accepted.

/** The first key repeated within one object, with the offset of its second occurrence; null when there is none. */
export function duplicateKey(text: string): { key: string; offset: number } | null {
  // Per open object its keys so far; null for an open array.
  const open: Array<Set<string> | null> = [];
  let keyNext = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      const keys = open.at(-1);
      if (keys && keyNext) {
        const key = JSON.parse(text.slice(i, j + 1)) as string;
        if (keys.has(key)) return { key, offset: i };
        keys.add(key);
        keyNext = false;
      }
      i = j;
    } else if (c === '{') {
      open.push(new Set());
      keyNext = true;
    } else if (c === '[') {
      open.push(null);
      keyNext = false;
    } else if (c === '}' || c === ']') {
      open.pop();
      keyNext = false;
    } else if (c === ',') {
      keyNext = open.at(-1) != null;
    }
  }
  return null;
}
