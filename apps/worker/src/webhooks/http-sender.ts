/**
 * Sends one webhook over HTTP(S) behind the SSRF guard (README, "Webhooks"): the host is resolved
 * once, every address it resolves to must pass `addressRefusal`, and the connection goes to the
 * address that was checked, so a DNS answer that changes in between (rebinding) cannot redirect
 * it. Redirects are not followed: a 3xx is a failed attempt like any other non-2xx.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { addressRefusal, type SendOutcome, type WebhookSender } from '@promptpix/core';

export interface ResolvedAddress {
  address: string;
  family: number;
}

export interface WebhookSenderOptions {
  /** Deadline of one attempt, connection to response headers. */
  timeoutMs: number;
  /** Turns the guard off (WEBHOOK_ALLOW_PRIVATE_ADDRESSES, development only). */
  allowPrivateAddresses: boolean;
  userAgent: string;
  /** Every address of a host name (default: the system resolver). */
  resolve?: (hostname: string) => Promise<ResolvedAddress[]>;
}

const systemResolve = (hostname: string) => dnsLookup(hostname, { all: true, verbatim: true });

export function createWebhookSender(o: WebhookSenderOptions): WebhookSender {
  const resolve = o.resolve ?? systemResolve;

  return {
    async send(target, headers, body) {
      let url: URL;
      try {
        url = new URL(target);
      } catch {
        return { kind: 'blocked', reason: 'not a URL' };
      }
      if (url.protocol !== 'https:' && url.protocol !== 'http:') return { kind: 'blocked', reason: `scheme ${url.protocol} is not allowed` };
      const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
      let addresses: ResolvedAddress[];
      try {
        addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await resolve(host);
      } catch (error) {
        return { kind: 'error', message: `DNS lookup of ${host} failed (${(error as NodeJS.ErrnoException).code ?? String(error)})` };
      }
      if (addresses.length === 0) return { kind: 'error', message: `DNS lookup of ${host} found no address` };
      if (!o.allowPrivateAddresses) {
        for (const { address } of addresses) {
          const refusal = addressRefusal(address);
          if (refusal) return { kind: 'blocked', reason: `${isIP(host) ? '' : `${host} resolves to `}${refusal}: webhooks go only to public addresses` };
        }
      }
      return post(url, addresses, { ...headers, 'content-type': 'application/json', 'user-agent': o.userAgent }, body, o.timeoutMs);
    },
  };
}

/** Connects only to `checked` (all of them, in order, when Node tries each address family). */
function post(url: URL, checked: ResolvedAddress[], headers: Record<string, string>, body: string, timeoutMs: number): Promise<SendOutcome> {
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if (options.all) callback(null, checked);
    else callback(null, checked[0].address, checked[0].family);
  };
  return new Promise((resolve) => {
    const request = (url.protocol === 'https:' ? https : http).request(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      lookup,
      // A fresh connection each time: a pooled one could outlive the address check.
      agent: false,
      signal: AbortSignal.timeout(timeoutMs),
    });
    request.on('response', (response) => {
      // Only the status counts; the body is read and dropped so the socket can close.
      response.resume();
      resolve({ kind: 'response', statusCode: response.statusCode ?? 0 });
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      const message = error.name === 'TimeoutError' || error.name === 'AbortError' ? `no response within ${timeoutMs} ms` : (error.code ?? error.message);
      resolve({ kind: 'error', message });
    });
    request.end(body);
  });
}
