import { createSocket, type Socket } from 'node:dgram';
import { createServer, type Server } from 'node:net';
import * as dnsPacket from 'dns-packet';

/** The record types the test server answers. */
export type DnsRecordType = 'A' | 'AAAA' | 'MX' | 'TXT' | 'CNAME';

export interface MxValue {
  priority: number;
  /** The mail host; `.` is a null MX (RFC 7505). */
  exchange: string;
}

/** The values of one record set, by type. */
export interface DnsValues {
  A: string[];
  AAAA: string[];
  MX: MxValue[];
  TXT: string[];
  CNAME: string[];
}

/** Record sets by name, for `serve`. */
export type DnsZone = Record<string, Partial<DnsValues>>;

const TTL = 60;
const UDP_LIMIT = 512;
const NOERROR = 0;
const NXDOMAIN = 3;

const normalise = (name: string) => name.toLowerCase().replace(/\.$/, '');

/** TXT strings longer than 255 bytes are sent as several character-strings of one record. */
function txtChunks(value: string): string[] {
  const chunks: string[] = [];
  for (let start = 0; start < value.length; start += 255) chunks.push(value.slice(start, start + 255));
  return chunks.length ? chunks : [''];
}

/**
 * A real DNS server on loopback (UDP and TCP on the same port) for tests: it answers A, AAAA, MX, TXT and
 * CNAME from records the test sets, follows CNAMEs like a recursive resolver would, answers an empty
 * NOERROR for a known name without records of the asked type, and NXDOMAIN for unknown names.
 */
export class DnsTestServer {
  private readonly zone = new Map<string, Partial<DnsValues>>();

  private constructor(
    private readonly udp: Socket,
    private readonly tcp: Server,
    readonly port: number,
  ) {}

  /** `host:port`, ready for `DNS_SERVERS` or `Resolver.setServers`. */
  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** Starts a server on a free loopback port. */
  static async start(): Promise<DnsTestServer> {
    for (let attempt = 0; attempt < 10; attempt += 1) {
      const udp = createSocket('udp4');
      await new Promise<void>((resolve, reject) => {
        udp.once('error', reject);
        udp.bind(0, '127.0.0.1', () => resolve());
      });
      const { port } = udp.address();
      const tcp = createServer();
      const listening = await new Promise<boolean>((resolve) => {
        tcp.once('error', () => resolve(false));
        tcp.listen(port, '127.0.0.1', () => resolve(true));
      });
      if (listening) {
        const server = new DnsTestServer(udp, tcp, port);
        server.listen();
        return server;
      }
      udp.close();
    }
    throw new Error('DnsTestServer: no free port for both UDP and TCP');
  }

  /** Replaces the record set of one type at a name (the name then exists). */
  set<T extends DnsRecordType>(name: string, type: T, values: DnsValues[T]): this {
    const key = normalise(name);
    this.zone.set(key, { ...this.zone.get(key), [type]: values });
    return this;
  }

  /** Adds every record set of a zone, replacing sets of the same name and type. */
  serve(zone: DnsZone): this {
    for (const [name, sets] of Object.entries(zone)) {
      for (const [type, values] of Object.entries(sets)) this.set(name, type as DnsRecordType, values as never);
    }
    return this;
  }

  /** Removes one record set of a name, or the whole name (which then answers NXDOMAIN). */
  remove(name: string, type?: DnsRecordType): this {
    const key = normalise(name);
    const sets = this.zone.get(key);
    if (!type || !sets) this.zone.delete(key);
    else delete sets[type];
    return this;
  }

  /** Forgets every record. */
  clear(): this {
    this.zone.clear();
    return this;
  }

  /** Stops both listeners. */
  async close(): Promise<void> {
    await Promise.all([
      new Promise<void>((resolve) => this.udp.close(() => resolve())),
      new Promise<void>((resolve) => this.tcp.close(() => resolve())),
    ]);
  }

  private listen(): void {
    this.udp.on('message', (message, remote) => {
      const reply = this.reply(message, true);
      if (reply) this.udp.send(reply, remote.port, remote.address);
    });
    this.tcp.on('connection', (socket) => {
      let pending = Buffer.alloc(0);
      socket.on('error', () => socket.destroy());
      socket.on('data', (data) => {
        pending = Buffer.concat([pending, data]);
        while (pending.length >= 2 && pending.length >= 2 + pending.readUInt16BE(0)) {
          const length = pending.readUInt16BE(0);
          const reply = this.reply(pending.subarray(2, 2 + length), false);
          pending = pending.subarray(2 + length);
          if (reply) {
            const framed = Buffer.alloc(2 + reply.length);
            framed.writeUInt16BE(reply.length, 0);
            reply.copy(framed, 2);
            socket.write(framed);
          }
        }
      });
    });
  }

  /** The encoded answer to one query message; undefined for a message that is not a query. */
  private reply(message: Buffer, overUdp: boolean): Buffer | undefined {
    let query: dnsPacket.Packet;
    try {
      query = dnsPacket.decode(message);
    } catch {
      return undefined;
    }
    const [question] = query.questions ?? [];
    if (query.type !== 'query' || !question) return undefined;
    const { answers, known } = this.resolve(question.name, question.type);
    const flags = dnsPacket.AUTHORITATIVE_ANSWER | dnsPacket.RECURSION_AVAILABLE | ((query.flags ?? 0) & dnsPacket.RECURSION_DESIRED);
    const response: dnsPacket.Packet = {
      id: query.id,
      type: 'response',
      flags: flags | (known ? NOERROR : NXDOMAIN),
      questions: [question],
      answers,
    };
    const encoded = dnsPacket.encode(response);
    if (!overUdp || encoded.length <= UDP_LIMIT) return encoded;
    return dnsPacket.encode({ ...response, answers: [], flags: response.flags! | dnsPacket.TRUNCATED_RESPONSE });
  }

  /** The answers for a name and type, following CNAMEs; `known` is false when the (final) name is unknown. */
  private resolve(name: string, type: string): { answers: dnsPacket.Answer[]; known: boolean } {
    const answers: dnsPacket.Answer[] = [];
    let current = normalise(name);
    for (let hops = 0; hops < 8; hops += 1) {
      const sets = this.zone.get(current);
      if (!sets) return { answers, known: answers.length > 0 };
      const alias = sets.CNAME?.[0];
      if (alias !== undefined && type !== 'CNAME') {
        answers.push({ type: 'CNAME', name: current, ttl: TTL, data: alias });
        current = normalise(alias);
        continue;
      }
      answers.push(...this.records(current, type, sets));
      return { answers, known: true };
    }
    return { answers, known: true };
  }

  private records(name: string, type: string, sets: Partial<DnsValues>): dnsPacket.Answer[] {
    const base = { name, ttl: TTL };
    switch (type) {
      case 'A':
      case 'AAAA':
      case 'CNAME':
        return (sets[type] ?? []).map((data) => ({ ...base, type, data }));
      case 'MX':
        return (sets.MX ?? []).map(({ priority, exchange }) => ({
          ...base,
          type: 'MX' as const,
          data: { preference: priority, exchange: exchange === '.' ? '' : exchange },
        }));
      case 'TXT':
        return (sets.TXT ?? []).map((value) => ({ ...base, type: 'TXT' as const, data: txtChunks(value) }));
      default:
        return [];
    }
  }
}
