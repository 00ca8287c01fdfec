import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { build } from 'esbuild';

/** A minified build of a small shop: `lineTotal` in `src/cart/total.ts` throws when an item has no product. */
export interface ShopBuild {
  url: string;
  code: string;
  map: string;
  /** The error's stack as V8 prints it for the minified file. */
  stack: string;
}

export const TOTAL_TS = `export function lineTotal(item: { product?: { price: number }; qty: number }): number {
  const price = item.product!.price;
  return price * item.qty;
}

export function cartTotal(cart: { items: Array<{ product?: { price: number }; qty: number }> }): number {
  return cart.items.reduce((sum, item) => sum + lineTotal(item), 0);
}
`;
/** An unrelated change in a second build: new functions, used often enough to take `lineTotal`'s minified name. */
const PRICING_TS = `export function coupon(code: string): string {
  return code.toUpperCase();
}
export function tax(n: number): number {
  return n * 1.2;
}
`;

/** Bundles the shop with esbuild (with the pricing module when `withPricing`) and runs it to record the error's stack. */
export async function buildShop(withPricing: boolean): Promise<ShopBuild> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-issues-build-'));
  try {
    await mkdir(join(dir, 'src/cart'), { recursive: true });
    await writeFile(join(dir, 'src/cart/total.ts'), (withPricing ? PRICING_TS : '') + TOTAL_TS);
    const pricing = withPricing
      ? 'import { coupon, tax } from "./cart/total";\nconsole.log(coupon("a"), coupon("b"), tax(1), tax(2), tax(3));\n'
      : '';
    await writeFile(
      join(dir, 'src/main.ts'),
      `import { cartTotal } from './cart/total';\n${pricing}try {\n  cartTotal({ items: [{ qty: 1 }] });\n} catch (e) {\n  (globalThis as { stack?: string }).stack = (e as Error).stack;\n}\n`,
    );
    const out = await build({
      absWorkingDir: dir,
      entryPoints: ['src/main.ts'],
      bundle: true,
      minify: true,
      sourcemap: 'external',
      write: false,
      outdir: 'dist/assets',
      entryNames: '[name]-[hash]',
      format: 'iife',
      logLevel: 'silent',
    });
    const js = out.outputFiles.find((f) => f.path.endsWith('.js'))!;
    const url = `https://shop.example.com/assets/${js.path.slice(js.path.lastIndexOf('/') + 1)}`;
    const page: { stack?: string } = {};
    runInNewContext(js.text, page, { filename: url });
    // The frames of the bundle; those below it are the caller's.
    const stack = page
      .stack!.split('\n')
      .filter((line, i) => i === 0 || line.includes(url) || line.includes('<anonymous>'))
      .join('\n');
    return { url, code: js.text, map: out.outputFiles.find((f) => f.path.endsWith('.map'))!.text, stack };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
