import { Link } from 'wouter';
import { channelsClient, deliveriesClient } from '../../api/typed';
import { useApi } from '../../api/use-api';
import type { Column } from '../../ui/data-table';
import { FilterBar } from '../../ui/filter-bar';
import { formatDuration, formatTime } from '../../ui/format';
import { PagedTable } from '../../ui/paged-table';
import { pick, useUrlState } from '../../ui/url-state';
import { DeliveryState } from './delivery-state';
import { DELIVERY_STATES, type Delivery } from './types';

/** How much of the receiver's answer the table shows; the rest is in the API. */
const EXCERPT = 120;

/** The delivery log, newest first unless a column sorts it: filters (channel, state), sort and the keyset page in the URL. */
export function DeliveriesSection() {
  const [params] = useUrlState();
  const channels = useApi((o) => channelsClient.index.$get(undefined, o));
  const query = { ...pick(params, ['channel_id', 'state', 'sort', 'order', 'cursor']), limit: '50' };
  const deliveries = useApi((o) => deliveriesClient.deliveries.$get({ query }, o), [query]);
  const names = new Map((channels.data?.data ?? []).map((c) => [c.id, c.name]));
  const columns: Column<Delivery>[] = [
    { id: 'created', header: 'Time', sortable: true, cell: (d) => formatTime(d.created_at) },
    { id: 'channel', header: 'Channel', cell: (d) => `${names.get(d.channel_id) ?? d.channel_id} (${d.channel_type})` },
    {
      id: 'incident',
      header: 'Incident',
      cell: (d) =>
        d.incident_id ? (
          <Link href={`/incident/${encodeURIComponent(d.incident_id)}`}>{d.incident_id}</Link>
        ) : d.issue_id ? (
          <Link href={`/issue/${encodeURIComponent(d.issue_id)}`}>{d.issue_id}</Link>
        ) : d.trigger === 'test' ? (
          'test'
        ) : (
          '—'
        ),
    },
    { id: 'event', header: 'Event', cell: (d) => d.event },
    { id: 'state', header: 'State', cell: (d) => <DeliveryState state={d.state} /> },
    { id: 'latency', header: 'Latency', sortable: true, numeric: true, cell: (d) => formatDuration(d.latency_ms) },
    { id: 'attempts', header: 'Attempts', numeric: true, cell: (d) => d.attempt },
    {
      id: 'response',
      header: 'Response',
      cell: (d) => {
        const body = d.response?.body ?? d.error_message ?? '';
        const status = d.response?.status ?? d.error_class;
        return (
          <span className="response-cell">
            {status != null && <strong>{status} </strong>}
            <span className="mono">{body.length > EXCERPT ? `${body.slice(0, EXCERPT)}…` : body}</span>
          </span>
        );
      },
    },
  ];
  return (
    <section aria-labelledby="deliveries-heading">
      <h2 id="deliveries-heading">Deliveries</h2>
      {/* Once the channels are known, so the channel select can show the URL's choice. */}
      {channels.data && (
        <FilterBar
          label="Delivery filters"
          fields={[
            {
              name: 'channel_id',
              label: 'Channel',
              kind: 'select',
              options: (channels.data?.data ?? []).map((c) => ({ value: c.id, label: c.name })),
            },
            {
              name: 'state',
              label: 'State',
              kind: 'select',
              options: DELIVERY_STATES.map((s) => ({ value: s, label: s })),
            },
          ]}
        />
      )}
      <PagedTable
        list={deliveries}
        empty="No deliveries match."
        caption="Notification deliveries"
        columns={columns}
        rowKey={(d) => d.id}
        defaultSort={{ id: 'created', order: 'desc' }}
      />
    </section>
  );
}
