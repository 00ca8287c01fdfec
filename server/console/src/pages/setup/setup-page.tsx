import { PageHeader } from '../../ui/layout';
import { LoadState } from '../../ui/status';
import { SetupPanel } from './setup-panel';
import { useSetup } from './use-setup';

/** `/setup`: how to send data to this project, whether or not it has any yet. */
export default function SetupPage() {
  const setup = useSetup();
  return (
    <>
      <PageHeader title="Set up" />
      <LoadState loading={setup.loading && !setup.data} error={setup.error} />
      {setup.data && <SetupPanel setup={setup.data} />}
    </>
  );
}
