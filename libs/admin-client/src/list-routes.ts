// The list routes of an OpenAPI document and their filters, read at run time (the types do the same at compile
// time: ListPath, FilterName): every GET answering `{ items: [...] }`, with its query parameters minus paging and
// format. The CLI's and the console's filter tests hold their tables against this.
import { NOT_FILTERS } from './types';

/** One list route: its path and each filter's name and parameter schema. */
export interface ListRoute {
  path: string;
  filters: Array<{ name: string; schema: Record<string, unknown> }>;
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (typeof v === 'object' && v !== null ? (v as Json) : {});

// Every list route of a document, in document order.
export function listRoutes(document: unknown): ListRoute[] {
  const doc = obj(document);
  const schemas = obj(obj(doc.components).schemas);
  const deref = (s: unknown, depth = 0): Json => {
    const o = obj(s);
    const ref = o.$ref;
    if (typeof ref !== 'string' || depth > 20) return o;
    return deref(schemas[ref.split('/').pop() ?? ''], depth + 1);
  };
  const out: ListRoute[] = [];
  for (const [path, ops] of Object.entries(obj(doc.paths))) {
    const get = obj(obj(ops).get);
    const ok = deref(obj(obj(obj(obj(get.responses)['200']).content)['application/json']).schema);
    if (obj(obj(ok.properties).items).type !== 'array') continue;
    const params = Array.isArray(get.parameters) ? (get.parameters as unknown[]).map(obj) : [];
    const filters = params
      .filter((p) => p.in === 'query' && !(NOT_FILTERS as readonly unknown[]).includes(p.name))
      .map((p) => ({ name: String(p.name), schema: obj(p.schema) }));
    out.push({ path, filters });
  }
  return out;
}
