import type { KeyboardEvent } from 'react';
import { canWrite } from '../../api/types';
import { useMe } from '../../auth/me-context';
import { PageHeader } from '../../ui/layout';
import { useUrlState } from '../../ui/url-state';
import { ChannelsSection } from './channels-section';
import { DeliveriesSection } from './deliveries-section';
import { RulesSection } from './rules-section';
import './notifications.css';

const TABS = [
  { id: 'channels', label: 'Channels' },
  { id: 'rules', label: 'Rules' },
  { id: 'deliveries', label: 'Deliveries' },
] as const;
type Tab = (typeof TABS)[number]['id'];

/**
 * `/notifications`: channels, rules and the delivery log as tabs; the tab is the URL's `tab` (channels by default), so
 * a link opens the same section. Tabs follow the ARIA tabs pattern (arrow keys, Home, End).
 */
export default function NotificationsPage() {
  const me = useMe();
  const writable = canWrite(me);
  const [params, update] = useUrlState();
  const tab: Tab = TABS.find((t) => t.id === params.get('tab'))?.id ?? 'channels';
  // Leaving a tab drops its filters and page: each tab's view starts clean.
  const select = (id: Tab) => update({ tab: id === 'channels' ? null : id, channel_id: null, state: null });
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const index = TABS.findIndex((t) => t.id === tab);
    const next = event.key === 'ArrowRight' ? index + 1 : event.key === 'ArrowLeft' ? index - 1 : event.key === 'Home' ? 0 : event.key === 'End' ? TABS.length - 1 : null;
    if (next === null) return;
    event.preventDefault();
    const target = TABS[(next + TABS.length) % TABS.length]!;
    select(target.id);
    document.getElementById(`tab-${target.id}`)?.focus();
  };
  return (
    <>
      <PageHeader title="Notifications" />
      {!writable && (
        <p className="panel read-note" role="note">
          Read-only key: you can see channels, rules and deliveries, but not change them or send tests.
        </p>
      )}
      <div role="tablist" aria-label="Notification settings" className="tabs" onKeyDown={onKeyDown}>
        {TABS.map((t) => (
          <button
            key={t.id}
            id={`tab-${t.id}`}
            type="button"
            role="tab"
            aria-selected={t.id === tab}
            aria-controls={`panel-${t.id}`}
            tabIndex={t.id === tab ? 0 : -1}
            onClick={() => select(t.id)}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`} className="tab-panel">
        {tab === 'channels' && <ChannelsSection writable={writable} />}
        {tab === 'rules' && <RulesSection writable={writable} />}
        {tab === 'deliveries' && <DeliveriesSection />}
      </div>
    </>
  );
}
