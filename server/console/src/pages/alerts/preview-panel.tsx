import { useEffect, useState } from 'react';
import { alertRulesClient } from '../../api/typed';
import { useApi } from '../../api/use-api';
import { LoadState } from '../../ui/status';
import { PreviewChart } from './preview-chart';
import { measureText } from './rule-text';
import type { PreviewRule } from './types';

/** Waits for typing to pause: `value` once it stayed the same for `ms`. */
function useSettled<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/**
 * The preview of a rule being edited: its query over the last 7 days, asked again once the fields stop changing
 * (`POST /alert-rules/preview`, which stores nothing). A field the server refuses is named here and next to it.
 */
export function PreviewPanel({ rule }: { rule: PreviewRule }) {
  const asked = useSettled(rule, 400);
  const preview = useApi((o) => alertRulesClient.preview.$post({ json: asked }, o), [asked]);
  return (
    <section className="panel preview-panel" aria-labelledby="preview-heading" aria-busy={preview.loading}>
      <h2 id="preview-heading">Preview: the last 7 days</h2>
      <LoadState loading={preview.loading && !preview.data} error={preview.error} />
      {preview.data && !preview.error && (
        <PreviewChart rule={asked} preview={preview.data} title={`${measureText(asked)} over the last 7 days`} />
      )}
    </section>
  );
}
