import { useState } from 'react';
import { getSDK } from '@svc/browser';
import { applyCoupons } from './coupons';

function xhrJson(url) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('GET', url);
    xhr.responseType = 'json';
    xhr.onload = () => resolve(xhr.response);
    xhr.onerror = () => reject(new Error(`XHR to ${url} failed`));
    xhr.send();
  });
}

export default function App() {
  const [echo, setEcho] = useState();
  const [xhrEcho, setXhrEcho] = useState();
  const [total, setTotal] = useState();
  const [path, setPath] = useState(window.location.pathname);
  // The instance /auto created; null only when REACT_APP_SVC_API_KEY was not set at build time.
  const sdk = getSDK();

  const navigate = (to) => {
    window.history.pushState({}, '', to);
    setPath(to);
  };

  return (
    <main>
      <h1>Shop (Create React App)</h1>
      <p>
        Page: <span data-testid="path">{path}</span>
      </p>

      <section>
        <button onClick={async () => setEcho(await (await fetch('/api/echo?via=fetch')).json())}>Fetch the API</button>
        <button onClick={async () => setXhrEcho(await xhrJson('/api/echo?via=xhr'))}>XHR the API</button>
        {echo && <pre data-testid="fetch-echo">{JSON.stringify(echo)}</pre>}
        {xhrEcho && <pre data-testid="xhr-echo">{JSON.stringify(xhrEcho)}</pre>}
      </section>

      <section>
        <button onClick={() => console.warn('Inventory is running low')}>Warn</button>
        <button
          onClick={() => {
            sdk?.log('info', 'Cart updated', { attrs: { items: 3 } });
            sdk?.metric('cart_items', 3);
            sdk?.captureReplayEvent('cart_updated', { items: 3 });
          }}
        >
          Update the cart
        </button>
        <button
          onClick={() => {
            try {
              JSON.parse('{ not json');
            } catch (error) {
              sdk?.captureException(error, { attrs: { step: 'parse saved cart' } });
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
        <button onClick={() => setTotal(applyCoupons(42, ['WELCOME10', 'EXPIRED5']))}>Apply the coupons</button>
        <button onClick={() => navigate('/about')}>About</button>
        {total !== undefined && <p data-testid="total">Total: {total} €</p>}
      </section>

      <footer>
        Session <code data-testid="session">{sdk?.sessionId}</code>
      </footer>
    </main>
  );
}
