// Plain-text tables for terminals (column widths from the content, long cells cut).

/** One column: a header and how to get the cell text from a row. */
export interface Column<T> {
  header: string;
  get: (row: T) => unknown;
  /** Widest cell in characters (longer text is cut with …), default 60. */
  max?: number;
}

// The text of one cell (dates and nulls readable; control characters removed).
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return '-';
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (Array.isArray(v)) return v.map(cellText).join(',');
  if (typeof v === 'object') return JSON.stringify(v);
  const s = typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'bigint' ? v.toString() : '';
  return s.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ');
}

// Renders rows as an aligned table with a header line.
export function renderTable<T>(rows: T[], columns: Array<Column<T>>): string {
  const cells = rows.map((r) =>
    columns.map((c) => {
      const t = cellText(c.get(r));
      const max = c.max ?? 60;
      return t.length > max ? `${t.slice(0, max - 1)}…` : t;
    }),
  );
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((row) => row[i]!.length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => (i === values.length - 1 ? v : v.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.header)), ...cells.map(line)].join('\n') + '\n';
}

// Renders an object as `key: value` lines (one level; nested values as JSON).
export function renderRecord(obj: Record<string, unknown>): string {
  const keys = Object.keys(obj);
  const width = Math.max(0, ...keys.map((k) => k.length));
  return keys.map((k) => `${`${k}:`.padEnd(width + 1)} ${cellText(obj[k])}`).join('\n') + '\n';
}
