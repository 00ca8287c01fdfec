import { formatMoney } from '../../ui/format';
import type { ByService } from './types';

/** Usage cost per service as a list of bars; each bar's value is written next to it, so the bar only repeats it. */
export function ServiceBars({ data, currency }: { data: ByService; currency: string }) {
  const max = Math.max(...data.services.map((s) => s.cost), 0);
  return (
    <section aria-labelledby="services-heading" className="panel">
      <h2 id="services-heading">Usage by service</h2>
      {data.services.length === 0 ? (
        <p className="state">No usage this period.</p>
      ) : (
        <ul className="service-bars" aria-label={`Usage cost by service, ${data.period}`}>
          {data.services.map((s) => (
            <li key={s.service}>
              <span className="bar-label">{s.service}</span>
              <span className="bar-track" aria-hidden="true">
                <span className="bar" style={{ width: `${max > 0 ? Math.max((s.cost / max) * 100, 0.5) : 0}%` }} />
              </span>
              <span className="bar-value">
                {formatMoney(s.cost, currency)} <span className="hint">({(s.share * 100).toFixed(1)} %)</span>
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
