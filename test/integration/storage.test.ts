// The storage module over real HTTP: records, lists, ranges, sharing, signed links, public files and deletes (uploads
// refused, size limits and 50 MB streams: storage-uploads.test.ts).
import { startService } from '../support/service.js';
import { storageService, type Account } from '../support/storage-service.js';

const st = storageService();
const { client, raw, bearer, account, multipart, stored } = st;
let alice: Account;
let bob: Account;
let carol: Account;
let team: string;
let fileId: string;
const content = Buffer.from('hello, world: the quick brown fox jumps over the lazy dog\n');

beforeAll(async () => {
  [alice, bob, carol] = await Promise.all([account('alice@files.example'), account('bob@files.example'), account('carol@files.example')]);
  team = (await client('POST', '/authentication/teams', alice.token, { name: 'Files' })).body._id;
  const inv = await client('POST', `/authentication/teams/${team}/invite`, alice.token, { email: 'bob@files.example' });
  expect((await client('POST', '/authentication/teams/join', bob.token, { invitationToken: inv.body.invitationToken })).status).toBe(200);
});

describe('storage: uploads and reads', () => {
  it('registers the File definition (owner, reader, editor; read, edit, delete)', async () => {
    const def = await st.svc.http('GET', '/authorization/resources/File');
    expect(def.status).toBe(200);
    expect(Object.keys(def.body.relations).sort()).toEqual(['editor', 'owner', 'reader']);
    expect(Object.keys(def.body.permissions).sort()).toEqual(['delete', 'edit', 'read']);
  });

  it('refuses every route without a token (401), and /ready lists the module', async () => {
    const id = '00000000-0000-0000-0000-000000000000';
    for (const [method, path] of [['POST', '/storage/upload'], ['PATCH', `/storage/upload/${id}`], ['GET', '/storage/files'], ['GET', `/storage/getFileUrl/${id}`], ['GET',
      `/storage/file/${id}`], ['GET', `/storage/file/data/${id}`], ['DELETE', `/storage/file/${id}`]] as const) {
      const r = await client(method, path);
      expect([method, path, r.status, r.body.code]).toEqual([method, path, 401, 'UNAUTHENTICATED']);
    }
    const ready = await startService({ READY_REQUIRED_MODULES: 'storage' }, { wipe: false });
    try {
      const r = await ready.http('GET', '/ready');
      expect(r.body.checks['module:storage']).toMatchObject({ status: 'pass' });
    } finally {
      await ready.stop();
    }
  });

  it('uploads multipart: 201 with the record; the uploader reads it back, bytes with the stored type', async () => {
    const up = await multipart('POST', '/storage/upload', alice.token, content, { folder: 'docs', isPublic: 'false' });
    expect(up.status).toBe(201);
    expect(up.body).toEqual({
      _id: expect.any(String),
      name: 'hello.txt',
      size: content.length,
      mimeType: 'text/plain',
      folder: 'docs',
      isPublic: false,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    fileId = up.body._id;
    expect((await client('GET', `/storage/file/${fileId}`, alice.token)).body).toEqual(up.body);
    const data = await raw(`/storage/file/data/${fileId}`, { headers: bearer(alice.token) });
    expect(data.status).toBe(200);
    expect(data.headers.get('content-type')).toBe('text/plain');
    expect(data.headers.get('x-content-type-options')).toBe('nosniff');
    expect(data.headers.get('accept-ranges')).toBe('bytes');
    expect(Buffer.from(await data.arrayBuffer())).toEqual(content);
  });

  it('uploads base64 JSON, for the team with scope=Team:t; a member who may not edit the team cannot upload for it', async () => {
    const body = { name: 'notes.json', data: Buffer.from('{"a":1}').toString('base64'), mimeType: 'application/json', folder: 'team' };
    const up = await client('POST', `/storage/upload?scope=Team:${team}`, alice.token, body);
    expect(up.status).toBe(201);
    expect(up.body).toMatchObject({ name: 'notes.json', size: 7, mimeType: 'application/json', folder: 'team', isPublic: false });
    // Bob is a member: he reads what the team owns, but may not edit or delete it.
    expect((await client('GET', `/storage/file/${up.body._id}`, bob.token)).status).toBe(200);
    expect((await client('DELETE', `/storage/file/${up.body._id}`, bob.token)).status).toBe(403);
    expect((await client('GET', `/storage/file/${up.body._id}`, carol.token)).status).toBe(404);
    expect((await client('POST', `/storage/upload?scope=Team:${team}`, bob.token, body)).status).toBe(403);
    const listed = await client('GET', `/storage/files?scope=Team:${team}`, bob.token);
    expect(listed.body).toMatchObject({ count: 1, files: [{ _id: up.body._id }] });
  });

  it("lists the caller's files from the index, paged", async () => {
    const all = await client('GET', '/storage/files', alice.token);
    expect(all.status).toBe(200);
    expect(all.body.count).toBe(2);
    const first = await client('GET', '/storage/files?skip=0&limit=1', alice.token);
    const second = await client('GET', '/storage/files?skip=1&limit=1', alice.token);
    expect(first.body.count).toBe(2);
    expect([first.body.files[0]._id, second.body.files[0]._id].sort()).toEqual(all.body.files.map((f: { _id: string }) => f._id).sort());
    expect((await client('GET', '/storage/files', carol.token)).body).toEqual({ files: [], count: 0 });
    expect((await client('GET', '/storage/files?subject=User:x', alice.token)).status).toBe(400);
  });

  it('serves one Range with 206 and Content-Range; a range past the end is 416', async () => {
    const part = await raw(`/storage/file/data/${fileId}`, { headers: { ...bearer(alice.token), range: 'bytes=7-11' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 7-11/${content.length}`);
    expect(await part.text()).toBe('world');
    const suffix = await raw(`/storage/file/data/${fileId}`, { headers: { ...bearer(alice.token), range: 'bytes=-4' } });
    expect([suffix.status, await suffix.text()]).toEqual([206, 'dog\n']);
    const open = await raw(`/storage/file/data/${fileId}`, { headers: { ...bearer(alice.token), range: `bytes=${content.length - 3}-` } });
    expect([open.status, await open.text()]).toEqual([206, 'og\n']);
    const past = await raw(`/storage/file/data/${fileId}`, { headers: { ...bearer(alice.token), range: `bytes=${content.length}-` } });
    expect([past.status, past.headers.get('content-range'), (await past.json()).code]).toEqual([416, `bytes */${content.length}`, 'RANGE_NOT_SATISFIABLE']);
  });
});

describe('storage: sharing and changes', () => {
  it('hides a file from an outsider (404 on every route) and lets a reader read but not change or delete it', async () => {
    for (const [method, path] of [['GET', `/storage/file/${fileId}`], ['GET', `/storage/file/data/${fileId}`], ['GET', `/storage/getFileUrl/${fileId}`], ['DELETE',
      `/storage/file/${fileId}`]] as const) {
      const r = await client(method, path, carol.token);
      expect([method, path, r.status, r.body.code]).toEqual([method, path, 404, 'NOT_FOUND']);
    }
    expect((await client('PATCH', `/storage/upload/${fileId}`, carol.token, { name: 'mine.txt' })).status).toBe(404);
    expect((await st.svc.http('POST', '/authorization/relations', { body: { subject: `User:${bob.id}`, relation: 'reader', resource: `File:${fileId}` } })).status).toBe(201);
    expect((await client('GET', `/storage/file/${fileId}`, bob.token)).status).toBe(200);
    const del = await client('DELETE', `/storage/file/${fileId}`, bob.token);
    expect([del.status, del.body.code]).toEqual([403, 'FORBIDDEN']);
    expect((await client('PATCH', `/storage/upload/${fileId}`, bob.token, { name: 'mine.txt' })).status).toBe(403);
    expect((await client('GET', `/storage/file/${fileId}`, alice.token)).body.name).toBe('hello.txt');
  });

  it('replaces metadata (JSON) and content (multipart) with edit; an editor may, the old bytes go', async () => {
    const meta = await client('PATCH', `/storage/upload/${fileId}`, alice.token, { name: 'renamed.txt', folder: null });
    expect(meta.status).toBe(200);
    expect(meta.body).toMatchObject({ _id: fileId, name: 'renamed.txt', folder: null, size: content.length });
    await st.svc.http('POST', '/authorization/relations', { body: { subject: `User:${carol.id}`, relation: 'editor', resource: `File:${fileId}` } });
    const before = await stored();
    const next = Buffer.from('<p>new content</p>');
    const replaced = await multipart('PATCH', `/storage/upload/${fileId}`, carol.token, next, {}, 'text/html');
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ name: 'renamed.txt', size: next.length, mimeType: 'text/html' });
    expect(replaced.body.updatedAt > meta.body.updatedAt).toBe(true);
    expect((await stored()).length).toBe(before.length);
    const data = await raw(`/storage/file/data/${fileId}`, { headers: bearer(carol.token) });
    expect(await data.text()).toBe(next.toString());
    // HTML uploaded by a user is served under the surface's CSP (nothing in it runs), and as an attachment: opening it
    // downloads it rather than rendering it on the service's origin.
    expect(data.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(data.headers.get('content-disposition')).toBe("attachment; filename*=UTF-8''renamed.txt");
    // The API's own answers keep their same-origin resource policy.
    expect(data.headers.get('cross-origin-resource-policy')).toBe('same-origin');
    expect((await client('DELETE', `/storage/file/${fileId}`, carol.token)).status).toBe(403);
  });
});

describe('storage: signed links', () => {
  it('hands out a signed link that works without a token until it expires; a tampered one is refused', async () => {
    const link = await client('GET', `/storage/getFileUrl/${fileId}`, alice.token);
    expect(link.status).toBe(200);
    expect(Date.parse(link.body.expiresAt)).toBeGreaterThan(Date.now() + 3000_000);
    const url = new URL(link.body.url);
    expect(url.origin).toBe(st.svc.client);
    const ok = await raw(link.body.url);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('<p>new content</p>');
    const ranged = await raw(link.body.url, { headers: { range: 'bytes=3-5' } });
    expect([ranged.status, await ranged.text()]).toEqual([206, 'new']);
    const sig = url.searchParams.get('signature')!;
    const tampered = new URL(url);
    tampered.searchParams.set('signature', (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1));
    expect((await raw(tampered.href)).status).toBe(403);
    const longer = new URL(url);
    longer.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
    expect((await raw(longer.href)).status).toBe(403);
    const other = new URL(url.href.replace(fileId, '00000000-0000-0000-0000-000000000000'));
    expect((await raw(other.href)).status).toBe(403);

    expect((await st.svc.http('PATCH', '/config/storage', { body: { urlTtlSeconds: 1 } })).status).toBe(200);
    const short = (await client('GET', `/storage/getFileUrl/${fileId}`, alice.token)).body;
    expect((await raw(short.url)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 2100));
    const expired = await raw(short.url);
    expect(expired.status).toBe(403);
    expect((await expired.json()).message).toMatch(/expired/);
    await st.svc.http('PATCH', '/config/storage', { body: { urlTtlSeconds: null } });
  });

  it('stops a signed link as soon as the user who asked for it may no longer read the file', async () => {
    const tuple = await st.svc.http('POST', '/authorization/relations', { body: { subject: `User:${bob.id}`, relation: 'reader', resource: `File:${fileId}` } });
    expect(tuple.status).toBeLessThan(300);
    const bobs = (await client('GET', `/storage/getFileUrl/${fileId}`, bob.token)).body.url as string;
    const alices = (await client('GET', `/storage/getFileUrl/${fileId}`, alice.token)).body.url as string;
    expect(new URL(bobs).searchParams.get('user')).toBe(bob.id);
    expect((await raw(bobs)).status).toBe(200);
    // The user is signed: naming another one breaks the signature.
    const swapped = new URL(bobs);
    swapped.searchParams.set('user', alice.id);
    expect((await raw(swapped.href)).status).toBe(403);
    expect((await st.svc.http('DELETE', `/authorization/relations/${encodeURIComponent(tuple.body._id)}`)).status).toBe(200);
    const revoked = await raw(bobs);
    expect(revoked.status).toBe(403);
    expect((await revoked.json()).message).toMatch(/no longer/);
    expect((await raw(alices)).status).toBe(200);
  });
});

describe('storage: public files', () => {
  it("makes a public file public on the contract's routes: its record and plain link to anyone, with or without a token", async () => {
    const pub = await client('POST', '/storage/upload', alice.token, { name: 'logo.txt', data: Buffer.from('public bytes').toString('base64'), isPublic: true });
    expect(pub.status).toBe(201);
    const id = pub.body._id as string;
    const plain = { url: `${st.svc.client}/storage/public/${id}`, expiresAt: null };
    expect((await client('GET', `/storage/getFileUrl/${id}`, alice.token)).body).toEqual(plain);
    expect(await (await raw(plain.url)).text()).toBe('public bytes');
    expect((await raw(`/storage/public/${fileId}`)).status).toBe(404);
    // Public is an index fact: the reader tuple of StoragePublic:anyone.
    const tuples = await st.svc.http('GET', `/authorization/relations?search=${encodeURIComponent(`@File:${id}`)}`);
    expect(tuples.body.relations.map((r: { computedTuple: string }) => r.computedTuple).sort())
      .toEqual([`StoragePublic:anyone#reader@File:${id}`, `User:${alice.id}#owner@File:${id}`]);
    // Another signed-in user, and a caller without a token, read the record and get the plain link.
    for (const token of [carol.token, undefined]) {
      expect([token ? 'carol' : 'anonymous', (await client('GET', `/storage/file/${id}`, token)).body]).toEqual([token ? 'carol' : 'anonymous', pub.body]);
      expect([token ? 'carol' : 'anonymous', (await client('GET', `/storage/getFileUrl/${id}`, token)).body]).toEqual([token ? 'carol' : 'anonymous', plain]);
    }
    const bytes = await raw(`/storage/file/data/${id}`, { headers: bearer(carol.token) });
    expect([bytes.status, await bytes.text()]).toEqual([200, 'public bytes']);
    // The files a user can read, from the index, include the public ones; carol may not change or delete it.
    const carols = async () => ((await client('GET', '/storage/files', carol.token)).body.files as Array<{ _id: string }>).map((f) => f._id);
    expect(await carols()).toContain(id);
    expect((await client('PATCH', `/storage/upload/${id}`, carol.token, { name: 'mine.txt' })).status).toBe(403);
    expect((await client('DELETE', `/storage/file/${id}`, carol.token)).status).toBe(403);
    // Without a token a file that is not public is 401 (whether or not it exists); a bad token is 401 even on a public file.
    for (const path of [`/storage/file/${fileId}`, `/storage/getFileUrl/${fileId}`, '/storage/file/00000000-0000-0000-0000-000000000000']) {
      const r = await client('GET', path);
      expect([path, r.status, r.body.code]).toEqual([path, 401, 'UNAUTHENTICATED']);
    }
    expect((await client('GET', `/storage/file/${id}`, 'not-a-token')).status).toBe(401);

    // Made private by its owner: at once no longer public anywhere.
    const made = await client('PATCH', `/storage/upload/${id}`, alice.token, { isPublic: false });
    expect([made.status, made.body.isPublic]).toEqual([200, false]);
    expect((await raw(plain.url)).status).toBe(404);
    expect((await client('GET', `/storage/file/${id}`)).status).toBe(401);
    expect((await client('GET', `/storage/file/${id}`, carol.token)).status).toBe(404);
    expect(await carols()).not.toContain(id);
    expect((await client('GET', `/storage/getFileUrl/${id}`, alice.token)).body.expiresAt).not.toBeNull();
    // And public again.
    expect((await client('PATCH', `/storage/upload/${id}`, alice.token, { isPublic: true })).body.isPublic).toBe(true);
    expect((await client('GET', `/storage/file/${id}`)).status).toBe(200);
    expect(await (await raw(plain.url)).text()).toBe('public bytes');
  });
});

describe('storage: who may publish, and embedding', () => {
  it('lets only the owner (delete) make a file public or private; an editor may not, so a revoked editor leaves nothing public', async () => {
    const up = await client('POST', '/storage/upload', alice.token, { name: 'secret.txt', data: Buffer.from('secret').toString('base64') });
    const id = up.body._id as string;
    const editor = await st.svc.http('POST', '/authorization/relations', { body: { subject: `User:${bob.id}`, relation: 'editor', resource: `File:${id}` } });
    expect(editor.status).toBe(201);
    const before = await stored();
    // Neither as JSON nor with new content (whose bytes are not kept) may bob publish; he may still rename it.
    const json = await client('PATCH', `/storage/upload/${id}`, bob.token, { isPublic: true });
    expect([json.status, json.body.code]).toEqual([403, 'FORBIDDEN']);
    const form = await multipart('PATCH', `/storage/upload/${id}`, bob.token, Buffer.from('replaced'), { isPublic: 'true' });
    expect(form.status).toBe(403);
    expect(await stored()).toEqual(before);
    expect((await client('PATCH', `/storage/upload/${id}`, bob.token, { name: 'renamed.txt', isPublic: false })).status).toBe(200);
    expect((await st.svc.http('DELETE', `/authorization/relations/${encodeURIComponent(editor.body._id)}`)).status).toBe(200);
    expect((await raw(`/storage/public/${id}`)).status).toBe(404);
    expect((await client('GET', `/storage/file/${id}`)).status).toBe(401);
    expect((await client('GET', `/storage/file/${id}`, bob.token)).status).toBe(404);
    expect((await client('GET', `/storage/file/${id}`, alice.token)).body).toMatchObject({ name: 'renamed.txt', isPublic: false, size: 6 });
    // The owner may; and with scope=Team:t, a public file needs delete on the team (bob, a member, may not).
    expect((await client('PATCH', `/storage/upload/${id}`, alice.token, { isPublic: true })).status).toBe(200);
    expect(await (await raw(`/storage/public/${id}`)).text()).toBe('secret');
    const teamFile = { name: 't.txt', data: Buffer.from('t').toString('base64'), isPublic: true };
    await st.svc.http('POST', '/authorization/relations', { body: { subject: `User:${bob.id}`, relation: 'editAll', resource: `Team:${team}` } });
    expect((await client('POST', `/storage/upload?scope=Team:${team}`, bob.token, teamFile)).status).toBe(403);
    expect((await client('POST', `/storage/upload?scope=Team:${team}`, bob.token, { ...teamFile, isPublic: false })).status).toBe(201);
    expect((await client('POST', `/storage/upload?scope=Team:${team}`, alice.token, teamFile)).status).toBe(201);
    expect(await stored()).toHaveLength(before.length + 2);
  });

  it('lets other origins embed public and signed bytes (CORP cross-origin); active types download, a public image shows', async () => {
    const upload = async (name: string, text: string, mimeType: string, isPublic: boolean) =>
      (await client('POST', '/storage/upload', alice.token, { name, data: Buffer.from(text).toString('base64'), mimeType, isPublic })).body._id as string;
    const png = await upload('dot.png', 'not really a png', 'image/png', true);
    const svg = await upload('logo.svg', '<svg xmlns="http://www.w3.org/2000/svg"/>', 'image/svg+xml', true);
    const page = await upload('page.html', '<form action="https://evil.example">', 'text/html', true);
    const js = await upload('app.js', 'alert(1)', 'application/javascript', false);
    const headersOf = async (path: string, token?: string) => {
      const r = await raw(path, token ? { headers: bearer(token) } : {});
      await r.arrayBuffer();
      return { status: r.status, corp: r.headers.get('cross-origin-resource-policy'), disposition: r.headers.get('content-disposition')?.split(';')[0],
        csp: r.headers.get('content-security-policy') };
    };
    expect(await headersOf(`/storage/public/${png}`)).toMatchObject({ status: 200, corp: 'cross-origin', disposition: 'inline' });
    expect(await headersOf(`/storage/public/${svg}`)).toMatchObject({ status: 200, corp: 'cross-origin', disposition: 'inline', csp: expect.stringContaining('sandbox') });
    expect(await headersOf(`/storage/public/${page}`)).toMatchObject({ status: 200, corp: 'cross-origin', disposition: 'attachment' });
    // Through the token route the same SVG downloads; a signed link is embeddable too, and active types download there.
    expect(await headersOf(`/storage/file/data/${svg}`, alice.token)).toMatchObject({ status: 200, corp: 'same-origin', disposition: 'attachment' });
    const signed = (await client('GET', `/storage/getFileUrl/${js}`, alice.token)).body.url as string;
    expect(await headersOf(signed)).toMatchObject({ status: 200, corp: 'cross-origin', disposition: 'attachment' });
    // Everything else keeps the API's headers.
    expect((await client('GET', `/storage/file/${png}`, alice.token)).headers.get('cross-origin-resource-policy')).toBe('same-origin');
    for (const id of [png, svg, page, js]) expect((await client('DELETE', `/storage/file/${id}`, alice.token)).status).toBe(200);
  });
});

describe('storage: delete', () => {
  it('deletes with delete: the record, the bytes and the tuples go', async () => {
    const before = await stored();
    expect((await client('DELETE', `/storage/file/${fileId}`, alice.token)).body).toEqual({ deleted: true });
    expect((await stored()).length).toBe(before.length - 1);
    expect((await client('GET', `/storage/file/${fileId}`, alice.token)).status).toBe(404);
    expect((await client('GET', `/storage/file/data/${fileId}`, alice.token)).status).toBe(404);
    expect((await client('DELETE', `/storage/file/${fileId}`, alice.token)).status).toBe(404);
    const tuples = await st.svc.http('GET', `/authorization/relations?search=${encodeURIComponent(`File:${fileId}`)}`);
    expect(tuples.body.count).toBe(0);
  });
});
