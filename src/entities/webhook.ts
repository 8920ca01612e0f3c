import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** Where a delivery stands: waiting or retrying, answered 2xx, or given up. */
export type WebhookDeliveryStatus = 'PENDING' | 'DELIVERED' | 'FAILED';

/** A URL of a project that receives signed events of the types it subscribes to. */
@Entity('webhook_endpoints')
export class WebhookEndpoint {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column({ type: 'uuid' }) projectId: string;
  @Column({ type: 'text' }) url: string;
  /** Event type names, `*` for every type. */
  @Column({ type: 'text', array: true }) events: string[];
  @Column({ type: 'text', nullable: true }) description: string | null;
  @Column({ type: 'boolean', default: true }) enabled: boolean;
  /** `whsec_<base64>`: the signing key, base64 after the prefix. */
  @Column({ type: 'text' }) secret: string;
  /** When its deliveries began failing without a success since; null while healthy. */
  @Column({ type: 'timestamptz', nullable: true }) failingSince: Date | null;
  @Column({ type: 'text', nullable: true }) disabledReason: string | null;
  @Column({ type: 'timestamptz', nullable: true }) disabledAt: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}

/** One event of a project, recorded for the endpoints that subscribed to its type. */
@Entity('webhook_events')
export class WebhookEvent {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column({ type: 'uuid' }) projectId: string;
  @Column({ type: 'text' }) type: string;
  @Column({ type: 'jsonb', default: {} }) data: Record<string, unknown>;
  /** The same key for one project records the event once. */
  @Column({ type: 'text', nullable: true }) dedupeKey: string | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
}

/** One event to one endpoint, carried out by the `hook/<endpointId>/<eventId>` workflow. */
@Entity('webhook_deliveries')
export class WebhookDelivery {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column({ type: 'uuid' }) endpointId: string;
  @Column({ type: 'uuid' }) eventId: string;
  @Column({ type: 'uuid' }) projectId: string;
  @Column({ type: 'text', default: 'PENDING' }) status: WebhookDeliveryStatus;
  @Column({ type: 'integer', default: 0 }) attempts: number;
  @Column({ type: 'integer', nullable: true }) lastStatusCode: number | null;
  @Column({ type: 'text', nullable: true }) lastError: string | null;
  /** Whether its delivery workflow has been started (by `webhook-dispatch`). */
  @Column({ type: 'boolean', default: false }) started: boolean;
  @Column({ type: 'timestamptz', nullable: true }) startedAt: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @Column({ type: 'timestamptz', nullable: true }) deliveredAt: Date | null;
}
