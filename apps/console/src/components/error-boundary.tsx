// Catches a page's render error (or a failed chunk load) and shows it instead of a blank screen.
import { Component, type ReactNode } from 'react';
import { ErrorBox } from './ui';

export class ErrorBoundary extends Component<{ children: ReactNode }, { error: unknown }> {
  override state: { error: unknown } = { error: null };

  static getDerivedStateFromError(error: unknown) {
    return { error };
  }

  override render() {
    if (this.state.error) return <ErrorBox error={this.state.error} title="This page failed" />;
    return this.props.children;
  }
}
