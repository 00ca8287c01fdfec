import { formatMoney } from '../../ui/format';
import type { Charges } from './types';

/** Charges that are not usage of a resource (tax, credits, refunds, fees, support), by the provider's charge type. */
export function ChargesTable({ charges, currency }: { charges: Charges; currency: string }) {
  return (
    <section aria-labelledby="charges-heading" className="panel">
      <h2 id="charges-heading">Charges that are not usage</h2>
      {charges.by_type.length === 0 ? (
        <p className="state">No tax, credit, refund, fee or support charge this period.</p>
      ) : (
        <table className="data-table">
          <caption className="visually-hidden">Non-usage charges by charge type</caption>
          <thead>
            <tr>
              <th scope="col">Charge type</th>
              <th scope="col">Category</th>
              <th scope="col" className="numeric">
                Cost (amortized)
              </th>
              <th scope="col" className="numeric">
                Billed
              </th>
            </tr>
          </thead>
          <tbody>
            {charges.by_type.map((c) => (
              <tr key={`${c.charge_type}-${c.charge_category}`}>
                <td>{c.charge_type}</td>
                <td>{c.charge_category}</td>
                <td className={`numeric${c.cost < 0 ? ' credit' : ''}`}>{formatMoney(c.cost, currency)}</td>
                <td className={`numeric${c.billed_cost < 0 ? ' credit' : ''}`}>
                  {formatMoney(c.billed_cost, currency)}
                </td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row" colSpan={2}>
                Total
              </th>
              <td className="numeric">
                <strong>{formatMoney(charges.cost, currency)}</strong>
              </td>
              <td className="numeric">{formatMoney(charges.billed_cost, currency)}</td>
            </tr>
          </tfoot>
        </table>
      )}
    </section>
  );
}
