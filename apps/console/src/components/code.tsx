// CodeMirror 6 wrappers: a TOML editor with the API's diagnostics inline (line/column), a read-only highlighted
// viewer, and a side-by-side diff (MergeView). Loaded only by the policy pages.
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { defaultHighlightStyle, StreamLanguage, syntaxHighlighting } from '@codemirror/language';
import { toml } from '@codemirror/legacy-modes/mode/toml';
import { type Diagnostic as CmDiagnostic, lintGutter, setDiagnostics } from '@codemirror/lint';
import { MergeView } from '@codemirror/merge';
import { EditorState, type Extension, type Text } from '@codemirror/state';
import {
  drawSelection,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
} from '@codemirror/view';
import { useEffect, useRef } from 'react';
import type { Diagnostic } from '../api/client';

const tomlLanguage = StreamLanguage.define(toml);

// The style nonce the API put in this page (CodeMirror's <style> elements must carry it under the CSP).
const styleNonce = document.querySelector<HTMLMetaElement>('meta[name="csp-style-nonce"]')?.content ?? '';

const theme = EditorView.theme({
  '&': {
    fontSize: '13px',
    border: '1px solid var(--border)',
    borderRadius: '6px',
    background: '#fff',
    color: '#1b2330',
  },
  '&.cm-focused': { outline: '2px solid var(--focus)', outlineOffset: '1px' },
  '.cm-content': { fontFamily: 'var(--mono)' },
  '.cm-gutters': { background: '#f7f8fa', borderRight: '1px solid #dde2e9', color: '#5b6472' },
  '.cm-scroller': { overflow: 'auto' },
});

// Extensions shared by every view; `language` false for plain text files.
function base(language: boolean, readOnly: boolean): Extension[] {
  return [
    lineNumbers(),
    highlightActiveLineGutter(),
    drawSelection(),
    readOnly ? [] : [history(), highlightActiveLine(), keymap.of([...defaultKeymap, ...historyKeymap])],
    language ? [tomlLanguage, syntaxHighlighting(defaultHighlightStyle, { fallback: true })] : [],
    EditorState.readOnly.of(readOnly),
    EditorView.editable.of(!readOnly),
    EditorView.cspNonce.of(styleNonce),
    theme,
  ];
}

// Maps API diagnostics (1-based line and column) to CodeMirror ranges; unlocated ones mark the first line.
export function toCmDiagnostics(doc: Text, diagnostics: Diagnostic[]): CmDiagnostic[] {
  return diagnostics.map((d) => {
    const lineNo = Math.min(Math.max(1, d.line ?? 1), doc.lines);
    const line = doc.line(lineNo);
    const from = Math.min(line.from + Math.max(0, (d.column ?? 1) - 1), line.to);
    const to = from < line.to ? line.to : Math.min(from + 1, doc.length);
    return {
      from,
      to,
      severity: d.severity === 'warning' ? 'warning' : 'error',
      message: `${d.code ? `${d.code}: ` : ''}${d.message}`,
    };
  });
}

export function CodeEditor({
  value,
  onChange,
  diagnostics,
  language = true,
  label,
  minHeight = 320,
}: {
  value: string;
  onChange: (text: string) => void;
  diagnostics?: Diagnostic[];
  language?: boolean;
  label: string;
  minHeight?: number;
}) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const changed = useRef(onChange);
  changed.current = onChange;
  useEffect(() => {
    const v = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: value,
        extensions: [
          base(language, false),
          lintGutter(),
          EditorView.contentAttributes.of({ 'aria-label': label }),
          EditorView.theme({ '.cm-content, .cm-gutter': { minHeight: `${minHeight}px` } }),
          EditorView.updateListener.of((u) => {
            if (u.docChanged) changed.current(u.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = v;
    return () => {
      v.destroy();
      view.current = null;
    };
    // The view owns the document after creation; outside value changes are applied below.
  }, [language, label, minHeight]);
  useEffect(() => {
    const v = view.current;
    if (v && v.state.doc.toString() !== value) {
      v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: value } });
    }
  }, [value]);
  useEffect(() => {
    const v = view.current;
    if (v) v.dispatch(setDiagnostics(v.state, toCmDiagnostics(v.state.doc, diagnostics ?? [])));
  }, [diagnostics, value]);
  return <div ref={host} className="code-editor" />;
}

export function CodeView({ value, language = true, label }: { value: string; language?: boolean; label: string }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const v = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: value,
        extensions: [base(language, true), EditorView.contentAttributes.of({ 'aria-label': label, tabindex: '0' })],
      }),
    });
    return () => v.destroy();
  }, [value, language, label]);
  return <div ref={host} className="code-view" />;
}

export function DiffView({ before, after, language = true }: { before: string; after: string; language?: boolean }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const view = new MergeView({
      parent: host.current!,
      a: {
        doc: before,
        extensions: [base(language, true), EditorView.contentAttributes.of({ 'aria-label': 'Before' })],
      },
      b: { doc: after, extensions: [base(language, true), EditorView.contentAttributes.of({ 'aria-label': 'After' })] },
      gutter: true,
      highlightChanges: true,
      collapseUnchanged: { margin: 4, minSize: 8 },
    });
    return () => view.destroy();
  }, [before, after, language]);
  return <div ref={host} className="diff-view" />;
}
