import { PageHeader } from '../../ui/layout';

/** Placeholder until the page is built (issue 20). */
export default function Page() {
  return <PageHeader title="traces-page" />;
}
