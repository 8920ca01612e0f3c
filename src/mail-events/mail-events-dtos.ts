import { Allow, Equals, IsIn } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';

/**
 * `POST /webhooks/mail-events`: the `secret` is checked by the handler, which answers 401 (not
 * 400) when it is missing or wrong, before the body is read.
 */
export class MailEventsQuery {
  @Allow() @JSONSchema({ type: 'string', description: 'The `MAIL_EVENTS_SECRET` of this deployment.' })
  secret!: string;
}

/** What the mail events webhook did with one SNS message. */
export class MailEventResult {
  @Equals(true) success!: true;

  @IsIn(['applied', 'duplicate', 'kept', 'confirmed', 'ignored'])
  @JSONSchema({
    description:
      '`applied` to an email; `duplicate`: this MessageId was received before; `kept`: the email is not recorded ' +
      'yet (no match, or still `QUEUED`), so the event waits and is applied when its send is recorded ' +
      '(acknowledged so SNS stops retrying); `confirmed`: the subscription was confirmed; `ignored`: an `UnsubscribeConfirmation`.',
  })
  outcome!: string;
}
