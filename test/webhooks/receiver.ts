import type { Server, ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { closeServer, listenLoopback, readBody } from '../support/http-double';

/** One POST a receiver got. */
export interface ReceivedHook {
  id: string;
  timestamp: string;
  signature: string;
  contentType: string | undefined;
  body: string;
  path: string;
}

/** What the receiver does with a request: answer a status, or hang until the caller gives up. */
export type ReceiverAnswer = number | 'hang';

/** A local webhook receiver that records every request and answers by `answer` (200 when unset). */
export interface Receiver {
  url: string;
  received: ReceivedHook[];
  answer: (hook: ReceivedHook, index: number) => ReceiverAnswer;
  close(): Promise<void>;
}

/** Starts a receiver on a loopback port. */
export async function startReceiver(answer: Receiver['answer'] = () => 200): Promise<Receiver> {
  const hanging: ServerResponse[] = [];
  const receiver: Receiver = { url: '', received: [], answer, close: async () => undefined };
  const { server, url } = await listenLoopback(async (req, res) => {
    const hook: ReceivedHook = {
      id: String(req.headers['webhook-id']),
      timestamp: String(req.headers['webhook-timestamp']),
      signature: String(req.headers['webhook-signature']),
      contentType: req.headers['content-type'],
      body: await readBody(req),
      path: req.url ?? '',
    };
    receiver.received.push(hook);
    const status = receiver.answer(hook, receiver.received.length - 1);
    if (status === 'hang') {
      hanging.push(res);
      return;
    }
    res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'receiver says no');
  });
  receiver.url = url;
  receiver.close = (): Promise<void> => closeServer(server as Server);
  return receiver;
}

/** Checks a received hook's signature with the independent `standardwebhooks` package; answers the verified body. */
export function verifyHook(secret: string, hook: ReceivedHook): unknown {
  return new Webhook(secret).verify(hook.body, {
    'webhook-id': hook.id,
    'webhook-timestamp': hook.timestamp,
    'webhook-signature': hook.signature,
  });
}
