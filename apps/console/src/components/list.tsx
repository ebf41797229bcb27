// The console's list scaffolding: one table component (columns declared once, rows keyed), one state wrapper
// (loading, the API error, empty) and one keyset-paged list hook ("Load more" while the API has a next cursor).
import {
  type InfiniteData,
  type QueryKey,
  useInfiniteQuery,
  type UseInfiniteQueryResult,
  type UseQueryResult,
} from '@tanstack/react-query';
import type { HTMLAttributes, ReactNode } from 'react';
import { nextCursorOf } from '../api/client';
import { Empty, ErrorBox, Loading, MoreButton } from './ui';

/** One column of a table: its header and how a row renders in it. */
export interface Column<T> {
  header: ReactNode;
  cell: (row: T, index: number) => ReactNode;
  className?: string;
  title?: (row: T) => string | undefined;
}

/** Data attributes, class and other props of a row's <tr>. */
export type RowProps = HTMLAttributes<HTMLTableRowElement> & Record<`data-${string}`, string | undefined>;

export interface TableProps<T> {
  rows: readonly T[];
  /** Columns; `false`/`null` entries are left out (e.g. an Actions column for writers only). */
  columns: ReadonlyArray<Column<T> | false | null | undefined>;
  rowKey: (row: T, index: number) => string;
  rowProps?: (row: T) => RowProps;
  className?: string;
  testId?: string;
  label?: string;
  /** Rows after the data rows (totals). */
  footer?: ReactNode;
}

// A table of rows under declared columns.
export function DataTable<T>({ rows, columns, rowKey, rowProps, className, testId, label, footer }: TableProps<T>) {
  const cols = columns.filter((c): c is Column<T> => Boolean(c));
  return (
    <table className={className} data-testid={testId} aria-label={label}>
      <thead>
        <tr>
          {cols.map((c, i) => (
            <th key={i} scope="col">
              {c.header}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row, i) => (
          <tr key={rowKey(row, i)} {...rowProps?.(row)}>
            {cols.map((c, j) => (
              <td key={j} className={c.className} title={c.title?.(row)}>
                {c.cell(row, i)}
              </td>
            ))}
          </tr>
        ))}
        {footer}
      </tbody>
    </table>
  );
}

/** A query's state as the list wrapper reads it (a useQuery or useInfiniteQuery result). */
export interface QueryLike {
  isPending: boolean;
  error: unknown;
}

// The loading and error states of a query, then its content once it has data (`children` given the data).
export function QueryState<D>({
  query,
  what,
  children,
  quiet,
}: {
  query: QueryLike & { data: D | undefined };
  what?: string;
  children: (data: D) => ReactNode;
  /** No loading line (panels that stay silent until they have something). */
  quiet?: boolean;
}) {
  return (
    <>
      {query.isPending && !quiet ? <Loading what={what} /> : null}
      <ErrorBox error={query.error} />
      {query.data !== undefined ? children(query.data) : null}
    </>
  );
}

type ItemsPage<T> = { items: T[]; nextCursor?: unknown };
type ListQuery<T> =
  UseQueryResult<ItemsPage<T>, unknown> | UseInfiniteQueryResult<InfiniteData<ItemsPage<T>, unknown>, unknown>;

// The items of a list query (every loaded page of a paged one).
export function itemsOf<T>(query: ListQuery<T>): T[] | undefined {
  const data = query.data;
  if (!data) return undefined;
  return 'pages' in data ? data.pages.flatMap((p) => p.items) : data.items;
}

// A list query as a table: loading, error, the empty text, the rows, and "Load more" for a paged list.
export function QueryList<T>({
  query,
  empty,
  what,
  filter,
  ...table
}: Omit<TableProps<T>, 'rows'> & {
  query: ListQuery<T>;
  empty: ReactNode;
  what?: string;
  /** Rows shown of the loaded items (a client-side narrowing). */
  filter?: (row: T) => boolean;
}) {
  const all = itemsOf(query);
  const rows = all && filter ? all.filter(filter) : all;
  const paged = 'fetchNextPage' in query ? query : null;
  return (
    <>
      {query.isPending ? <Loading what={what} /> : null}
      <ErrorBox error={query.error} />
      {rows && rows.length === 0 ? <Empty>{empty}</Empty> : null}
      {rows && rows.length > 0 ? <DataTable rows={rows} {...table} /> : null}
      {paged ? (
        <MoreButton
          hasMore={Boolean(paged.hasNextPage)}
          loading={paged.isFetchingNextPage}
          onClick={() => void paged.fetchNextPage()}
        />
      ) : null}
    </>
  );
}

// A keyset-paginated list read page by page: `fetchPage` gets the cursor ('' for the first page).
export function usePagedList<T>(
  queryKey: QueryKey,
  fetchPage: (cursor: string | undefined) => Promise<ItemsPage<T>>,
  options: { refetchInterval?: number; enabled?: boolean } = {},
): UseInfiniteQueryResult<InfiniteData<ItemsPage<T>, unknown>, unknown> {
  return useInfiniteQuery({
    queryKey,
    queryFn: ({ pageParam }) => fetchPage(pageParam === '' ? undefined : pageParam),
    initialPageParam: '',
    getNextPageParam: (page) => nextCursorOf(page) ?? undefined,
    ...options,
  });
}
