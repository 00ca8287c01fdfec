import { useState } from 'react';
import { SvcErrorBoundary, captureException, captureReplayEvent, getSessionId, log, metric } from '@svc/browser/react';
import { applyCoupons } from './coupons';

interface Echo {
  url: string;
  headers: Record<string, string>;
}

interface Loyalty {
  points: { total: number };
}

function xhrJson(url: string): Promise<Echo> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('GET', url);
    xhr.responseType = 'json';
    xhr.onload = () => resolve(xhr.response as Echo);
    xhr.onerror = () => reject(new Error(`XHR to ${url} failed`));
    xhr.send();
  });
}

/** Renders fine until asked to break, so the boundary around it has something to report. */
function PriceWidget({ broken }: { broken: boolean }) {
  if (broken) throw new Error('PriceWidget could not render the price');
  return <p>Price: 42 €</p>;
}

export function App() {
  const [echo, setEcho] = useState<Echo>();
  const [xhrEcho, setXhrEcho] = useState<Echo>();
  const [broken, setBroken] = useState(false);
  const [total, setTotal] = useState<number>();
  const [points, setPoints] = useState<number>();
  const [path, setPath] = useState(location.pathname);

  const navigate = (to: string) => {
    history.pushState({}, '', to);
    setPath(to);
  };

  return (
    <main>
      <h1>Shop (Vite + React)</h1>
      <p>
        Page: <span data-testid="path">{path}</span>
      </p>

      <section>
        <button onClick={async () => setEcho((await (await fetch('/api/echo?via=fetch')).json()) as Echo)}>Fetch the API</button>
        <button onClick={async () => setXhrEcho(await xhrJson('/api/echo?via=xhr'))}>XHR the API</button>
        {echo && <pre data-testid="fetch-echo">{JSON.stringify(echo)}</pre>}
        {xhrEcho && <pre data-testid="xhr-echo">{JSON.stringify(xhrEcho)}</pre>}
      </section>

      <section>
        <button onClick={() => console.warn('Inventory is running low')}>Warn</button>
        <button
          onClick={() => {
            log('info', 'Cart updated', { attrs: { items: 3 } });
            metric('cart_items', 3);
            captureReplayEvent('cart_updated', { items: 3 });
          }}
        >
          Update the cart
        </button>
        <button
          onClick={() => {
            try {
              JSON.parse('{ not json');
            } catch (error) {
              captureException(error, { attrs: { step: 'parse saved cart' } });
            }
          }}
        >
          Handled error
        </button>
        <button
          onClick={() => {
            throw new Error('Checkout button exploded');
          }}
        >
          Throw
        </button>
        <button onClick={() => setBroken(true)}>Break the widget</button>
        <button onClick={() => setTotal(applyCoupons(42, ['WELCOME10', 'EXPIRED5']))}>Apply the coupons</button>
        <button
          onClick={async () => {
            const loyalty = (await (await fetch('/api/loyalty')).json()) as Loyalty;
            setPoints(loyalty.points.total);
          }}
        >
          Show loyalty points
        </button>
        <button onClick={() => navigate('/about')}>About</button>
        {total !== undefined && <p data-testid="total">Total: {total} €</p>}
        {points !== undefined && <p data-testid="points">Loyalty points: {points}</p>}
      </section>

      <SvcErrorBoundary fallback={<p role="alert">The price is unavailable.</p>}>
        <PriceWidget broken={broken} />
      </SvcErrorBoundary>

      <footer>
        Session <code data-testid="session">{getSessionId()}</code>
      </footer>
    </main>
  );
}
