import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** A project's caps per billing category; null means no cap. */
@Entity('billing_limits')
export class BillingLimits {
  @PrimaryColumn({ type: 'uuid' }) projectId: string;
  /** Emails sent per billing period (calendar month, UTC). */
  @Column({ type: 'int', nullable: true }) emails: number | null;
  /** Contacts stored at any one time. */
  @Column({ type: 'int', nullable: true }) contacts: number | null;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}

/** The project's customer and subscription at the payment provider, as its webhooks last reported them. */
@Entity('billing_accounts')
export class BillingAccount {
  @PrimaryColumn({ type: 'uuid' }) projectId: string;
  @Column({ type: 'text' }) customerId: string;
  @Column({ type: 'text', nullable: true }) subscriptionId: string | null;
  @Column({ type: 'text', nullable: true }) subscriptionStatus: string | null;
  @Column({ type: 'text', nullable: true }) priceId: string | null;
  @Column({ type: 'timestamptz', nullable: true }) currentPeriodEnd: Date | null;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}
