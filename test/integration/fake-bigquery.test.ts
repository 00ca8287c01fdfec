import { createPrivateKey, sign } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STANDARD_EXPORT_SCHEMA, fakeBigQuery, type FakeBigQuery } from '../support/cost/fake-bigquery';

/**
 * The BigQuery fake types query parameters as BigQuery does: a value its declared type cannot hold, and a comparison
 * of a column with a parameter of another type, are refused 400 `invalidQuery` in Google's error shape, so a client
 * that declares the wrong types fails here as it would against BigQuery.
 */
const TABLE = 'svc-billing-reader.billing_export.gcp_billing_export_v1_0A1B2C_3D4E5F_6A7B8C';
const READER = 'cost-reader@svc-billing-reader.iam.gserviceaccount.com';

let bigquery: FakeBigQuery;
let token: string;
beforeAll(async () => {
  bigquery = await fakeBigQuery();
  bigquery.addTable(TABLE, {
    schema: STANDARD_EXPORT_SCHEMA,
    rows: [{ _PARTITIONTIME: Date.parse('2024-05-02'), invoice: { month: '202405' }, cost: 1.5 }],
  });
  const key = bigquery.serviceAccount(READER);
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const scope = 'https://www.googleapis.com/auth/bigquery';
  const unsigned = `${part({ alg: 'RS256', typ: 'JWT' })}.${part({ iss: READER, sub: READER, scope, exp: Math.floor(Date.now() / 1000) + 3600 })}`;
  token = `${unsigned}.${sign('RSA-SHA256', Buffer.from(unsigned), createPrivateKey(key.private_key)).toString('base64url')}`;
});
afterAll(() => bigquery.close());

type Parameter = [name: string, type: string, value: string];
const query = async (where: string, parameters: Parameter[]) => {
  const res = await fetch(`${bigquery.origin}/bigquery/v2/projects/svc-billing-reader/queries`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      query: `SELECT cost FROM \`${TABLE}\` WHERE ${where}`,
      queryParameters: parameters.map(([name, type, value]) => ({
        name,
        parameterType: { type },
        parameterValue: { value },
      })),
    }),
  });
  return {
    status: res.status,
    body: (await res.json()) as { totalRows?: string; error?: { message: string; errors: { reason: string }[] } },
  };
};
const refused = (message: string) => ({
  status: 400,
  body: { error: { code: 400, message, errors: [expect.objectContaining({ reason: 'invalidQuery' })] } },
});

describe('the BigQuery fake, as strict as BigQuery with parameter types', () => {
  it('runs a query whose parameters have the types of what they are compared with', async () => {
    const answer = await query('invoice.month = @month AND _PARTITIONTIME >= @from', [
      ['month', 'STRING', '202405'],
      ['from', 'TIMESTAMP', '2024-04-30T00:00:00.000Z'],
    ]);
    expect(answer).toMatchObject({ status: 200, body: { totalRows: '1' } });
  });

  it('refuses a value its declared type cannot hold', async () => {
    const where = 'invoice.month = @month';
    const month: Parameter = ['month', 'STRING', '202405'];
    expect(await query(where, [month, ['n', 'INT64', '12.5']])).toMatchObject(refused('Bad int64 value: 12.5'));
    expect(await query(where, [month, ['n', 'INT64', '9223372036854775808']])).toMatchObject(
      refused('Bad int64 value: 9223372036854775808'),
    );
    expect(await query(where, [month, ['d', 'DATE', '2024-02-30']])).toMatchObject(
      refused("Invalid date: '2024-02-30'"),
    );
    expect(await query(where, [month, ['t', 'TIMESTAMP', 'yesterday']])).toMatchObject(
      refused("Invalid timestamp: 'yesterday'"),
    );
    expect(await query(where, [month, ['b', 'BOOL', 'yes']])).toMatchObject(refused('Bad bool value: yes'));
    expect(await query(where, [month, ['x', 'FLOAT64', 'one']])).toMatchObject(refused('Bad double value: one'));
    expect(await query(where, [month, ['n', 'INT64', '-42']])).toMatchObject({ status: 200 });
  });

  it('refuses a comparison of a column with a parameter of another type', async () => {
    expect(await query('invoice.month = @month', [['month', 'INT64', '202405']])).toMatchObject(
      refused('No matching signature for operator = for argument types: STRING, INT64. Supported signature: ANY = ANY'),
    );
    expect(
      await query('invoice.month = @month AND _PARTITIONTIME >= @from', [
        ['month', 'STRING', '202405'],
        ['from', 'DATE', '2024-04-30'],
      ]),
    ).toMatchObject(
      refused(
        'No matching signature for operator >= for argument types: TIMESTAMP, DATE. Supported signature: ANY >= ANY',
      ),
    );
  });
});
