// The console's one mutation hook: runs an async action (a write to the API), tracks whether it is running and
// the error it ended with (shown by ErrorBox), so forms and buttons do not each keep their own busy/error state.
import { useCallback, useState } from 'react';

export interface Action<A extends unknown[]> {
  /** Runs the action; its error is kept in `error` (never thrown), the previous one cleared first. */
  run: (...args: A) => Promise<void>;
  busy: boolean;
  error: unknown;
  setError: (err: unknown) => void;
}

// An action with busy and error state.
export function useAction<A extends unknown[]>(action: (...args: A) => Promise<unknown>): Action<A> {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = useCallback(
    async (...args: A) => {
      setBusy(true);
      setError(null);
      try {
        await action(...args);
      } catch (err) {
        setError(err);
      } finally {
        setBusy(false);
      }
    },
    [action],
  );
  return { run, busy, error, setError };
}
