import { Shop } from './shop';

export default function Home() {
  return (
    <main>
      <h1>Shop (Next.js)</h1>
      <Shop />
    </main>
  );
}
