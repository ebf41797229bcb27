// A list's filter bar kept in the URL's query string: text fields apply on Enter or "Filter", pick lists (enumerated
// filters, the group picker, yes/no) at once. The fields come from the page's filter table (filters.ts).
import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import type { FilterKind } from '../filters';
import { groupsQuery } from '../queries';
import { navigate, useLocation } from '../router';

/** One field of a filter bar (its `path` is the page's path; other query parameters, e.g. a tab, are kept). */
export interface FilterField {
  key: string;
  label: string;
  kind: FilterKind;
  /** The values of a `pick` field. */
  options?: readonly string[];
  placeholder?: string;
  /** The words of a `bool` field's two values. */
  yesNo?: readonly [string, string];
}

// The values of the fields set in the URL (trimmed, empty ones left out).
export function filterValues(fields: readonly FilterField[], query: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of fields) {
    const v = query.get(f.key)?.trim();
    if (v) out[f.key] = v;
  }
  return out;
}

export function FilterBar({ fields, path, label }: { fields: readonly FilterField[]; path: string; label: string }) {
  const { query } = useLocation();
  const applied = filterValues(fields, query);
  const [draft, setDraft] = useState<Record<string, string>>(applied);
  const needsGroups = fields.some((f) => f.kind === 'group');
  const groups = useQuery({ ...groupsQuery, enabled: needsGroups });
  const go = (values: Record<string, string>) => {
    const next = new URLSearchParams(query);
    for (const f of fields) {
      const v = values[f.key]?.trim();
      if (v) next.set(f.key, v);
      else next.delete(f.key);
    }
    navigate(`${path}${next.size ? `?${next.toString()}` : ''}`, true);
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    go(draft);
  };
  const pick = (key: string, value: string) => {
    const values = { ...draft, [key]: value };
    setDraft(values);
    go(values);
  };
  const hasText = fields.some((f) => f.kind === 'text' || f.kind === 'datetime');
  return (
    <form className="toolbar" onSubmit={submit} aria-label={label}>
      {fields.map((f) => {
        const id = `fb-${path.replace(/\W+/g, '-')}-${f.key}`;
        const value = draft[f.key] ?? '';
        const select = (options: ReadonlyArray<readonly [string, string]>) => (
          <select id={id} value={value} onChange={(e) => pick(f.key, e.target.value)}>
            <option value="">any</option>
            {options.map(([v, text]) => (
              <option key={v} value={v}>
                {text}
              </option>
            ))}
          </select>
        );
        return (
          <span key={f.key} className="toolbar-field">
            <label htmlFor={id}>{f.label}</label>
            {f.kind === 'pick' ? (
              select((f.options ?? []).map((o) => [o, o.replaceAll('_', ' ')] as const))
            ) : f.kind === 'bool' ? (
              select([
                ['true', f.yesNo?.[0] ?? 'yes'],
                ['false', f.yesNo?.[1] ?? 'no'],
              ])
            ) : f.kind === 'group' ? (
              select((groups.data?.items ?? []).map((g) => [g.id, g.name] as const))
            ) : (
              <input
                id={id}
                value={value}
                placeholder={f.placeholder}
                onChange={(e) => setDraft((d) => ({ ...d, [f.key]: e.target.value }))}
              />
            )}
          </span>
        );
      })}
      {hasText ? (
        <button type="submit" className="btn-secondary btn-small">
          Filter
        </button>
      ) : null}
    </form>
  );
}
