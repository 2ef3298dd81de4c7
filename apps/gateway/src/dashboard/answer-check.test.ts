import { dashboardAnswerProblem } from './testing';

const key = {
  id: '7f3e2a4c-1b6d-4e8f-9a0b-2c3d4e5f6a7b',
  kind: 'publishable',
  name: 'site',
  domains: ['example.com'],
  prefix: 'pk_live_Ab12',
  createdAt: '2026-11-27T00:00:00.000Z',
  lastUsedAt: null,
};

it.each([
  ['an answer as its schema states', 'GET', '/dashboard/api/keys', 200, { keys: [key] }, null],
  ['a query string', 'GET', '/dashboard/api/keys?x=1', 200, { keys: [key] }, null],
  ['a missing field', 'GET', '/dashboard/api/keys', 200, { keys: [{ ...key, prefix: undefined }] }, /does not match its schema/],
  ['a field the schema does not state', 'GET', '/dashboard/api/keys', 200, { keys: [{ ...key, hash: 'x' }] }, /fields its schema does not state/],
  ['a route the table does not list', 'GET', '/dashboard/api/nowhere', 200, {}, /lists no schema/],
  ['an error answer', 'GET', '/dashboard/api/keys', 404, { error: 'Not found' }, null],
])('%s', (_case, method, path, status, body, problem) => {
  const found = dashboardAnswerProblem(method, path, status, 'application/json; charset=utf-8', body);
  if (problem === null) expect(found).toBeNull();
  else expect(found).toMatch(problem);
});
