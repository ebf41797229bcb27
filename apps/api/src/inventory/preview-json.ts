// The release preview as response JSON: every endpoint's suppressed keys spliced in as the stored JSON text (a
// 10,000-endpoint preview holds ~450,000 keys: none is parsed or serialized again).
import type { EndpointImpact } from '@hookwarden/hook-core';

// JSON text of a preview view: its fields as JSON.stringify writes them, `perEndpoint` last with its keys text.
export function previewJson<T extends { perEndpoint: readonly EndpointImpact[] }>(view: T): string {
  const { perEndpoint, ...rest } = view;
  const head = JSON.stringify(rest);
  const parts: string[] = [head === '{}' ? '{"perEndpoint":[' : `${head.slice(0, -1)},"perEndpoint":[`];
  perEndpoint.forEach((p, i) => {
    parts.push(
      `${i > 0 ? ',' : ''}{"endpointId":${JSON.stringify(p.endpointId)},"hostname":${JSON.stringify(p.hostname)},` +
        `"suppressed":${JSON.stringify(p.suppressed)},"suppressedKeys":${p.suppressedKeysJson},` +
        `"hooksTurnedOff":${p.hooksTurnedOff},"unknown":${p.unknown},"inventoryAt":${JSON.stringify(p.inventoryAt)}}`,
    );
  });
  parts.push(']}');
  return parts.join('');
}
