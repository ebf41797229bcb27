// How a search text is read: as text, and when it looks like one, as an id, a hash or digest prefix, or a number
// (`v3`, `r12`, `#4`, optionally after a name: `base v3`). Pure.

export interface SearchTerms {
  /** The text as typed (trimmed). */
  text: string;
  /** The text as a UUID, when it is one. */
  uuid: string | null;
  /** The text as a lowercase hex prefix (≥ 6 digits, an optional `sha256:` dropped), when it is one. */
  hex: string | null;
  /** The trailing version or revision number (`v3`, `r12`, `#4`, `12` as the last word), when there is one. */
  number: number | null;
  /** What precedes that number (a policy or group name), or null. */
  rest: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HEX = /^(?:sha256:)?([0-9a-f]{6,64})$/i;
const NUMBER = /^[vr#]?(\d{1,9})$/i;

// Reads a search text into the forms each kind is matched by.
export function searchTerms(input: string): SearchTerms {
  const text = input.trim();
  const uuid = UUID.test(text) ? text.toLowerCase() : null;
  const hex = HEX.exec(text)?.[1]?.toLowerCase() ?? null;
  // The last word may be the number; what precedes it, a name (no backtracking regex on the input).
  const cut = Math.max(text.lastIndexOf(' '), text.lastIndexOf('\t'));
  const m = uuid ? null : NUMBER.exec(text.slice(cut + 1));
  return {
    text,
    uuid,
    hex: uuid ? null : hex,
    number: m ? Number(m[1]) : null,
    rest: m && cut > 0 ? text.slice(0, cut).trim() || null : null,
  };
}
