import Link from 'next/link';

export default function About() {
  return (
    <main>
      <h1>About the shop</h1>
      <p data-testid="path">/about</p>
      <Link href="/">Back to the shop</Link>
    </main>
  );
}
