/**
 * Issue 18 items 1 and 2: the one address check over every IPv4/IPv6 spelling, the pinned
 * connections of pdf_url downloads and webhook POSTs, and the same rules end to end against a real
 * `cas serve` on 127.0.0.1 (which allow-lists 127.0.0.1 only, as written).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { nonPublicReason, isPublicAddress, parseIPv6 } from '../../src/shared/net-address.js';
import { fetchPdf, postJson, FetchError } from '../../src/server/net/fetch.js';
import { expectedJson, fixture, manifest } from '../helpers/cas.js';
import { newKey, post, serve, type Served } from '../helpers/server.js';

const PDF = readFileSync(fixture('depository_a/cdsl-cas.pdf'));
const PASSWORD = manifest().find((m) => m.path === 'depository_a/cdsl-cas.pdf')!.password!;

describe('the address check', () => {
  const blocked: [string, RegExp][] = [
    // IPv4
    ['0.0.0.0', /this-network/],
    ['0.1.2.3', /this-network/],
    ['10.0.0.1', /private/],
    ['172.16.0.1', /private/],
    ['172.31.255.255', /private/],
    ['192.168.1.1', /private/],
    ['127.0.0.1', /loopback/],
    ['127.255.255.254', /loopback/],
    ['169.254.169.254', /link-local/],
    ['100.64.0.1', /carrier-grade NAT/],
    ['100.127.255.255', /carrier-grade NAT/],
    ['224.0.0.1', /multicast/],
    ['239.255.255.250', /multicast/],
    ['240.0.0.1', /reserved/],
    ['255.255.255.255', /reserved/],
    ['198.18.0.1', /benchmarking/],
    ['198.19.255.255', /benchmarking/],
    ['192.0.2.1', /documentation/],
    ['198.51.100.7', /documentation/],
    ['203.0.113.9', /documentation/],
    ['192.0.0.8', /IETF/],
    ['192.88.99.1', /6to4 relay/],
    // IPv6 itself
    ['::', /unspecified/],
    ['::1', /loopback/],
    ['0:0:0:0:0:0:0:1', /loopback/],
    ['[::1]', /loopback/],
    ['fc00::1', /unique-local/],
    ['fdff:ffff::1', /unique-local/],
    ['fe80::1', /link-local/],
    ['febf::1', /link-local/],
    ['fec0::1', /site-local/],
    ['feff::1', /site-local/],
    ['ff02::1', /multicast/],
    ['ff0e::1', /multicast/],
    ['2001:db8::1', /documentation/],
    ['3fff:fff::1', /documentation/],
    ['2001:2::1', /benchmarking/],
    ['100::1', /discard/],
    ['4000::1', /global unicast/],
    ['fe80::1%eth0', /not an IP/],
    ['localhost', /not an IP/],
    // IPv4 carried in IPv6: mapped (dotted and hex), translated, compatible, NAT64, 6to4, Teredo (server and obfuscated client)
    ['::ffff:127.0.0.1', /IPv4-mapped 127\.0\.0\.1: loopback/],
    ['::ffff:7f00:1', /IPv4-mapped 127\.0\.0\.1: loopback/],
    ['[::ffff:7f00:1]', /IPv4-mapped/],
    ['0:0:0:0:0:ffff:7f00:0001', /IPv4-mapped 127\.0\.0\.1/],
    ['::FFFF:A9FE:A9FE', /IPv4-mapped 169\.254\.169\.254: link-local/],
    ['::ffff:10.0.0.1', /IPv4-mapped 10\.0\.0\.1: private/],
    ['::ffff:0:7f00:1', /IPv4-translated 127\.0\.0\.1/],
    ['::127.0.0.1', /IPv4-compatible 127\.0\.0\.1/],
    ['::7f00:1', /IPv4-compatible 127\.0\.0\.1/],
    ['::a00:1', /IPv4-compatible 10\.0\.0\.1/],
    ['64:ff9b::127.0.0.1', /NAT64 127\.0\.0\.1/],
    ['64:ff9b::a9fe:a9fe', /NAT64 169\.254\.169\.254/],
    ['64:ff9b:1::1', /NAT64 local use/],
    ['2002:7f00:1::1', /6to4 127\.0\.0\.1/],
    ['2002:c0a8:101::1', /6to4 192\.168\.1\.1/],
    ['2001:0:7f00:1::1', /Teredo server 127\.0\.0\.1/],
    ['2001:0:808:808::80ff:fffe', /Teredo client 127\.0\.0\.1/],
    ['2001:0:808:808::3f57:fefe', /Teredo client 192\.168\.1\.1/],
  ];
  it.each(blocked)('%s is refused (%s)', (ip, why) => {
    expect(nonPublicReason(ip)).toMatch(why);
    expect(isPublicAddress(ip)).toBe(false);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '100.63.255.255',
    '100.128.0.1',
    '172.32.0.1',
    '192.169.0.1',
    '2606:4700:4700::1111',
    '2a00:1450:4001:82b::200e',
    '::ffff:8.8.8.8',
    '::ffff:808:808',
    '64:ff9b::8.8.8.8',
    '2002:808:808::1',
    '2001:0:808:808::f7f7:f7f7',
  ])('%s is public', (ip) => {
    expect(nonPublicReason(ip)).toBeNull();
  });

  it('parses every IPv6 spelling to the same eight groups', () => {
    const want = [0, 0, 0, 0, 0, 0xffff, 0x7f00, 1];
    for (const s of [
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '0:0:0:0:0:ffff:7f00:1',
      '0000:0000:0000:0000:0000:FFFF:7F00:0001',
      '[::ffff:7f00:1]',
    ])
      expect(parseIPv6(s), s).toEqual(want);
    expect(parseIPv6('127.0.0.1')).toBeNull();
    expect(parseIPv6('1::2::3')).toBeNull();
  });
});

describe('pinned connections (in process)', () => {
  let files: http.Server;
  let base: number;
  const posts: string[] = [];
  beforeAll(async () => {
    files = http.createServer((req, res) => {
      if (req.url === '/x.pdf') return void res.end(PDF);
      if (req.url?.startsWith('/to?')) {
        res.writeHead(302, { location: decodeURIComponent(req.url.slice(4)) });
        return void res.end();
      }
      if (req.url === '/hook') {
        let b = '';
        req.on('data', (c: Buffer) => (b += c));
        req.on('end', () => {
          posts.push(b);
          res.end('ok');
        });
        return;
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => files.listen(0, '127.0.0.1', r));
    base = (files.address() as AddressInfo).port;
  });
  afterAll(() => files.close());
  const limits = (allowHosts: string[]) => ({ maxBytes: 5_000_000, timeoutMs: 5000, maxRedirects: 3, allowHosts });

  it('a DNS host name is resolved, checked and connected to (lookup with all: true works)', async () => {
    const body = await fetchPdf(`http://localhost:${base}/x.pdf`, limits(['localhost']));
    expect(body.equals(PDF)).toBe(true);
    // Not allow-listed, the same name is refused for what it resolves to.
    await expect(fetchPdf(`http://localhost:${base}/x.pdf`, limits([]))).rejects.toThrow(
      /pdf_url points at a non-public address \((127\.0\.0\.1|::1): loopback\)/,
    );
  });

  it('mapped IPv6 spellings of an allow-listed IPv4 are refused, directly and after a redirect', async () => {
    for (const host of ['[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '[::127.0.0.1]', '[64:ff9b::7f00:1]']) {
      const u = `http://${host}:${base}/x.pdf`;
      await expect(fetchPdf(u, limits(['127.0.0.1'])), u).rejects.toThrow(/non-public address/);
      await expect(fetchPdf(`http://127.0.0.1:${base}/to?${encodeURIComponent(u)}`, limits(['127.0.0.1'])), u).rejects.toThrow(
        /non-public address/,
      );
    }
  });

  it('postJson posts to the checked address, follows no redirect, refuses mapped addresses', async () => {
    const r = await postJson(`http://localhost:${base}/hook`, {
      headers: { 'x-t': '1' },
      body: '{"a":1}',
      timeoutMs: 5000,
      allowHosts: ['localhost'],
    });
    expect(r.status).toBe(200);
    expect(posts).toEqual(['{"a":1}']);
    const moved = await postJson(`http://127.0.0.1:${base}/to?${encodeURIComponent(`http://127.0.0.1:${base}/hook`)}`, {
      headers: {},
      body: '{}',
      timeoutMs: 5000,
      allowHosts: ['127.0.0.1'],
    });
    expect(moved.status).toBe(302);
    expect(posts).toHaveLength(1);
    for (const u of [`http://[::ffff:7f00:1]:${base}/hook`, `http://[::ffff:127.0.0.1]:${base}/hook`, `http://localhost:${base}/hook`]) {
      const err = await postJson(u, { headers: {}, body: '{}', timeoutMs: 5000, allowHosts: ['127.0.0.1'] }).catch((e: unknown) => e);
      expect(err, u).toBeInstanceOf(FetchError);
      expect((err as Error).message, u).toMatch(/^callback_url points at a non-public address/);
    }
    expect(posts).toHaveLength(1);
  });
});

describe('against a real cas serve', () => {
  let srv: Served;
  let key: string;
  let files: http.Server;
  let port: number;
  const hits: string[] = [];
  beforeAll(async () => {
    files = http.createServer((req, res) => {
      hits.push(req.url ?? '');
      if (req.url === '/x.pdf') return void res.end(PDF);
      if (req.url?.startsWith('/to?')) {
        res.writeHead(302, { location: decodeURIComponent(req.url.slice(4)) });
        return void res.end();
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => files.listen(0, '127.0.0.1', r));
    port = (files.address() as AddressInfo).port;
    srv = await serve(undefined, ['--allow-fetch-host', 'localhost']);
    key = await newKey(srv.dataDir, ['--credits', '100']);
  }, 60_000);
  afterAll(async () => {
    await srv?.stop();
    files?.close();
  });

  it('pdf_url on an IPv4-mapped IPv6 address is refused with 400, directly and through a redirect from an allowed host', async () => {
    for (const host of ['[::ffff:127.0.0.1]', '[::ffff:7f00:1]']) {
      const direct = `http://${host}:${port}/x.pdf`;
      for (const u of [direct, `http://127.0.0.1:${port}/to?${encodeURIComponent(direct)}`]) {
        const before = hits.filter((h) => h === '/x.pdf').length;
        const r = await post(srv.url, '/v4/depository_a/parse', { key, json: { pdf_url: u, password: PASSWORD } });
        expect(r.status, u).toBe(400);
        expect(r.body, u).toEqual({
          status: 'failed',
          msg: expect.stringMatching(
            /^pdf_url points at a non-public address \(::ffff:7f00:1: IPv4-mapped 127\.0\.0\.1: loopback\); refused$/,
          ),
        });
        expect(hits.filter((h) => h === '/x.pdf').length, u).toBe(before);
      }
    }
  });

  it('pdf_url with a DNS host name (localhost, allow-listed) is fetched and parsed', async () => {
    const r = await post(srv.url, '/v4/depository_a/parse', {
      key,
      json: { pdf_url: `http://localhost:${port}/x.pdf`, password: PASSWORD },
    });
    expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(200);
    expect(r.body).toEqual(expectedJson('expected/depository_a.json'));
  });

  it('a callback_url on a mapped address is refused when the inbound email is created', async () => {
    for (const u of [
      'http://[::ffff:127.0.0.1]:9/hook',
      'http://[::ffff:7f00:1]:9/hook',
      'http://[::ffff:a9fe:a9fe]/latest',
      'http://[64:ff9b::7f00:1]/hook',
    ]) {
      const r = await post(srv.url, '/v4/inbound-email', { key, json: { callback_url: u } });
      expect(r.status, u).toBe(400);
      expect(r.body, u).toEqual({ status: 'failed', msg: expect.stringMatching(/^callback_url points at a non-public address/) });
    }
  });
});
