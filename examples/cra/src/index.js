// The SDK's one line: it configures itself from the REACT_APP_SVC_* variables at build time and starts capturing
// before anything else in the app runs.
import '@svc/browser/auto';
import React from 'react';
import ReactDOM from 'react-dom/client';
import App from './App';

ReactDOM.createRoot(document.getElementById('root')).render(
  <React.StrictMode>
    <App />
  </React.StrictMode>,
);
