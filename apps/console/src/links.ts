// Drill-down links: the console paths that show the rows behind a number (the URL holds every filter).

// The path of the endpoints view with these parameters (empty ones left out).
export function endpointsPath(q: Record<string, string | undefined>): string {
  const s = new URLSearchParams(Object.entries(q).filter((e): e is [string, string] => !!e[1])).toString();
  return s ? `/endpoints?${s}` : '/endpoints';
}

// The path of the hook-run explorer with these filters (empty ones left out).
export function explorerPath(q: Record<string, string | undefined>): string {
  const s = new URLSearchParams(Object.entries(q).filter((e): e is [string, string] => !!e[1])).toString();
  return s ? `/hook-runs?${s}` : '/hook-runs';
}
