import escapeHtml from 'escape-html';
import type { Preferences } from '../contacts/preferences-service';


const STYLE = [
  'body{margin:0;background:#f5f6f8;color:#1f2933;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}',
  'main{max-width:28rem;margin:12vh auto;padding:2rem;background:#fff;border-radius:12px;box-shadow:0 1px 3px rgba(0,0,0,.08)}',
  'h1{margin:0 0 .75rem;font-size:1.375rem}',
  'p{margin:0 0 1rem}',
  'form{margin:1.5rem 0 0}',
  'button{padding:.6rem 1.25rem;border:0;border-radius:8px;background:#1f2933;color:#fff;font:inherit;cursor:pointer}',
  '.note{color:#52606d;font-size:.875rem}',
  'a{color:#2557d6}',
].join('');

/** A whole page around an already escaped body. */
function layout(title: string, body: string): string {
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="robots" content="noindex">',
    `<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>`,
    `<body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`,
  ].join('\n');
}

const who = (page: Preferences) => `<strong>${escapeHtml(page.email)}</strong>`;
const from = (page: Preferences) => `<strong>${escapeHtml(page.projectName)}</strong>`;

/** A POST form back to this page's own URL, with one button. */
function form(label: string, field = ''): string {
  return `<form method="post">${field}<button type="submit">${escapeHtml(label)}</button></form>`;
}

/** The pages live side by side (`/subscribe/t`, `/manage/t`), so a relative link works behind any path prefix. */
function manageLink(page: Preferences, label: string): string {
  if (!page.manageToken) return '';
  return `<p class="note"><a href="../manage/${encodeURIComponent(page.manageToken)}">${escapeHtml(label)}</a></p>`;
}

/** An unsubscribe link may not subscribe anyone (it travels in headers and forwarded mail), so its pages only say how. */
const resubscribeNote = (page: Preferences) =>
  `<p class="note">Changed your mind? The subscribe or manage link in an email from ${from(page)} signs you up again.</p>`;

function suppressedNote(page: Preferences): string {
  return page.suppressed
    ? `<p class="note">Earlier email to this address bounced or was reported as spam, so ${from(page)} does not send to it for now.</p>`
    : '';
}

/** `GET /unsubscribe/{token}`: asks first, so link scanners change nothing. */
export function confirmUnsubscribe(page: Preferences): string {
  if (!page.subscribed) return layout('Already unsubscribed', `<p>${who(page)} does not receive marketing email from ${from(page)}.</p>${resubscribeNote(page)}`);
  return layout('Unsubscribe?', `<p>Stop marketing email from ${from(page)} to ${who(page)}?</p>${form('Unsubscribe')}`);
}

/** After `POST /unsubscribe/{token}`. */
export function unsubscribed(page: Preferences): string {
  return layout('You are unsubscribed', `<p>${who(page)} will no longer receive marketing email from ${from(page)}.</p>${resubscribeNote(page)}`);
}

/** `GET /subscribe/{token}`. */
export function confirmSubscribe(page: Preferences): string {
  if (page.subscribed) return layout('Already subscribed', `<p>${who(page)} is subscribed to email from ${from(page)}.</p>${suppressedNote(page)}${manageLink(page, 'Manage your subscription')}`);
  return layout('Subscribe?', `<p>Receive email from ${from(page)} at ${who(page)}?</p>${form('Subscribe')}`);
}

/** After `POST /subscribe/{token}`. */
export function subscribed(page: Preferences): string {
  return layout('You are subscribed', `<p>${who(page)} will receive email from ${from(page)}.</p>${suppressedNote(page)}${manageLink(page, 'Manage your subscription')}`);
}

/** `GET /manage/{token}` and the answer to its form. */
export function manage(page: Preferences, saved = false): string {
  const state = page.subscribed
    ? `<p>${who(page)} is <strong>subscribed</strong> to email from ${from(page)}.</p>`
    : `<p>${who(page)} is <strong>unsubscribed</strong> from marketing email from ${from(page)}.</p>`;
  const action = page.subscribed
    ? form('Unsubscribe', '<input type="hidden" name="subscribed" value="false">')
    : form('Subscribe', '<input type="hidden" name="subscribed" value="true">');
  return layout('Your subscription', `${saved ? '<p class="note">Saved.</p>' : ''}${state}${suppressedNote(page)}${action}`);
}

/** A token that opens nothing: too old, or forged, incomplete, for another page or for a contact that no longer exists. */
export function linkRefused(reason: 'invalid' | 'expired'): string {
  const why = reason === 'expired'
    ? '<p>Links in emails work for a limited time, and this one has expired.</p><p class="note">Use the link in a more recent email from the sender.</p>'
    : '<p>The link may be incomplete, or the subscription it was for no longer exists.</p>';
  return layout('This link has expired or is not valid', why);
}
