/**
 * Header names a `/v1/send` caller may not set (CONTRACT 15): those that name recipients or
 * the sender, and those Herald writes itself. Each with what to do instead; matched in any case.
 */
const RESERVED: { pattern: RegExp; instead: string }[] = [
  { pattern: /^(to|cc|bcc)$/, instead: 'recipients come from `to` alone; list every recipient there' },
  { pattern: /^(from|sender)$/, instead: 'the sender comes from `from` (and `name`)' },
  { pattern: /^reply-to$/, instead: 'use the `reply` field' },
  { pattern: /^(return-path|message-id|date|mime-version|content-.*)$/, instead: 'Herald sets it on every message' },
  { pattern: /^list-unsubscribe.*$/, instead: 'Herald adds it to MARKETING mail, with the contact\'s own link' },
  { pattern: /^x-ses-.*$/, instead: 'Herald chooses the SES configuration set and message tags, which carry its mail events' },
];

/** Why a custom header may not be set, naming it and what to do instead; undefined when it may. */
export function reservedHeaderMessage(name: string): string | undefined {
  const rule = RESERVED.find(({ pattern }) => pattern.test(name.toLowerCase()));
  return rule && `The ${name} header cannot be set in headers: ${rule.instead}.`;
}
