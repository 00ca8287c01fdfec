import { can } from '../../api/types';
import { useMe } from '../../auth/me-context';
import { PageHeader } from '../../ui/layout';
import { Tabs } from '../../ui/tabs';
import { ChannelsSection } from './channels-section';
import { DeliveriesSection } from './deliveries-section';
import { RulesSection } from './rules-section';
import './notifications.css';

/**
 * `/notifications`: channels, rules and the delivery log as tabs; the tab is the URL's `tab` (channels by default), so
 * a link opens the same section. Tabs follow the ARIA tabs pattern (arrow keys, Home, End).
 */
export default function NotificationsPage() {
  const me = useMe();
  const writable = can(me, 'project.configure');
  return (
    <>
      <PageHeader title="Notifications" />
      {!writable && (
        <p className="panel read-note" role="note">
          Read-only key: you can see channels, rules and deliveries, but not change them or send tests.
        </p>
      )}
      <Tabs
        label="Notification settings"
        param="tab"
        clear={['channel_id', 'state']}
        className="notify-tabs"
        tabs={[
          { id: 'channels', label: 'Channels', panel: () => <ChannelsSection writable={writable} /> },
          { id: 'rules', label: 'Rules', panel: () => <RulesSection writable={writable} /> },
          { id: 'deliveries', label: 'Deliveries', panel: () => <DeliveriesSection /> },
        ]}
      />
    </>
  );
}
