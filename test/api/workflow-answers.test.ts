import { Client, signupWithProject, startApi, type TestApi } from '../support/api';

/** The answers of the workflows endpoints where a body or query holds more than one problem. */
describe('workflows: the order of checks and the shape of errors', () => {
  let api: TestApi;
  let client: Client;
  let key: string;
  let workflowId: string;

  beforeAll(async () => {
    api = await startApi();
    const signedUp = await signupWithProject(api);
    client = signedUp.client;
    key = signedUp.project.secretKey;
    const created = await client.post('/workflows', { name: 'W' }, { key });
    expect(created.status).toBe(201);
    workflowId = created.body.id;
  });
  afterAll(() => api.close());

  it('GET /workflows/{not-a-uuid}/executions?status=bogus is 404 Workflow not found', async () => {
    const answer = await client.get('/workflows/not-a-uuid/executions?status=bogus', { key });
    expect(answer.status).toBe(404);
    expect(answer.body.error.code).toBe('NOT_FOUND');
    expect(answer.body.error.message).toBe('Workflow not found');
  });

  it('GET /workflows/{id}/executions with a bad cursor and a bad status reports the cursor', async () => {
    const answer = await client.get(`/workflows/${workflowId}/executions?status=bogus&cursor=garbage`, { key });
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toBe('The cursor is not valid; pass the cursor from the previous response unchanged');
  });

  it('a step stores position as { x, y } only', async () => {
    const step = await client.post(`/workflows/${workflowId}/steps`, { type: 'EXIT', position: { x: 1, y: 2, z: 3 } }, { key });
    expect(step.status).toBe(201);
    expect(step.body.position).toEqual({ x: 1, y: 2 });
    const patched = await client.patch(`/workflows/${workflowId}/steps/${step.body.id}`, { position: { x: 5, y: 6, label: 'hi' } }, { key });
    expect(patched.status).toBe(200);
    expect(patched.body.position).toEqual({ x: 5, y: 6 });
  });

  it('POST /workflows/{id}/executions without contactId or email and with an array context reports "exactly one"', async () => {
    const answer = await client.post(`/workflows/${workflowId}/executions`, { context: [] }, { key });
    expect(answer.status).toBe(422);
    expect(answer.body.error.errors).toEqual([{ field: 'contactId', code: 'required', message: 'Give exactly one of contactId and email' }]);
  });

  it('validation errors of triggerConfig.eventName and context carry no `received`', async () => {
    const trigger = await client.patch(`/workflows/${workflowId}`, { triggerConfig: { eventName: '' } }, { key });
    expect(trigger.status).toBe(422);
    expect(trigger.body.error.errors).toEqual([
      { field: 'triggerConfig.eventName', code: 'invalid_string', message: 'eventName must be a non-empty string of at most 255 characters' },
    ]);
    const context = await client.post(`/workflows/${workflowId}/executions`, { email: 'a@b.co', context: 5 }, { key });
    expect(context.status).toBe(422);
    expect(context.body.error.errors).toEqual([{ field: 'context', code: 'invalid_type', message: 'context must be an object' }]);
  });
});
