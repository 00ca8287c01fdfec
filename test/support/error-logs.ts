import { str } from './otlp';

/** Error logs as the browser SDK's captureException sends them, for the incident detection suites. */

export const CART_ERROR = "Cannot read properties of undefined (reading 'id')";

/** A Chrome stack under an SDK wrapper; `build` and `line` change with each deploy. */
export const chromeStack = (message: string, build = '3f9a1c2b', line = 42) => `TypeError: ${message}
    at wrapListener (https://cdn.example.net/svc/svc.min.js:1:20431)
    at renderCart (https://shop.example.com/assets/checkout.${build}.js:${line}:17)
    at HTMLButtonElement.onClick (https://shop.example.com/assets/app-DiwrgTda.js:12:3)`;

export interface ErrorInput {
  message?: string;
  stack?: string;
  sessionId?: string;
  release?: string;
  env?: string;
  atMs: number;
}

/** The resource of the `web-app` app (the bootstrapped one) in `staging` unless told. */
export const resource = (e: { release?: string; env?: string; sessionId?: string }) => ({
  attributes: [
    str('service.name', 'web-app'),
    str('service.version', e.release ?? '1.4.2'),
    str('deployment.environment.name', e.env ?? 'staging'),
    ...(e.sessionId ? [str('session.id', e.sessionId)] : []),
  ],
});

/** An OTLP/JSON logs request with one record: an error (severity 17) unless `severityNumber` says otherwise. */
export function errorLog(e: ErrorInput, severityNumber = 17) {
  const message = e.message ?? CART_ERROR;
  return {
    resourceLogs: [
      {
        resource: resource(e),
        scopeLogs: [
          {
            scope: { name: '@svc/browser' },
            logRecords: [
              {
                timeUnixNano: `${e.atMs}000000`,
                severityNumber,
                severityText: severityNumber >= 17 ? 'ERROR' : 'WARN',
                body: { stringValue: `TypeError: ${message}` },
                attributes: [
                  str('exception.type', 'TypeError'),
                  str('exception.message', message),
                  str('exception.stacktrace', e.stack ?? chromeStack(message)),
                ],
              },
            ],
          },
        ],
      },
    ],
  };
}
