// Demo: two devices of one user and a device of another sync through the origin.
// Usage: ENGRAM_ORIGIN=http://… TOKEN_ZHANG=… TOKEN_LI=… node scripts/sync-demo.mjs
import { Engram, MemoryStorage } from "../pkg/dist/entrypoints/node.js";

const url = process.env.ENGRAM_ORIGIN;
const open = (user, token) =>
  Engram.open({ user, tenant: "demo", storage: new MemoryStorage(), embedder: false, sync: { url, token, background: false } });

const phone = await open("zhang-san", process.env.TOKEN_ZHANG);
const laptop = await open("zhang-san", process.env.TOKEN_ZHANG);
const li = await open("li-si", process.env.TOKEN_LI);

await phone.remember({ text: "Prefers Go for backend services", kind: "preference", key: { subject: "zhang san", attribute: "language" } });
await phone.session("trip").append("user", "Planning a beach trip in March, medium budget");
await li.remember("Li Si is allergic to peanuts");
console.log(`phone: ${await phone.pendingSync()} change batches waiting in the outbox`);
const pushed = await phone.sync();
console.log(`phone sync: pushed ${pushed.pushed}, cursor ${pushed.cursor}`);
const pulled = await laptop.sync();
console.log(`laptop sync: pulled ${pulled.pulled} batches (${pulled.pulledOps} ops)`);
const hits = await laptop.recall("which language for the backend?");
console.log(`laptop recalls: ${hits.hits.map((h) => JSON.stringify(h.record.text)).join(", ")}`);
await li.sync();

await laptop.forgetUser();
await laptop.sync();
await phone.sync();
const listed = await fetch(`${url}/v1/memories`, { headers: { authorization: `Bearer ${process.env.TOKEN_ZHANG}` } }).then((r) => r.json());
console.log(`after forget-user: phone holds ${phone.count()}, origin holds ${listed.memories.length} of zhang-san's memories`);
const other = await fetch(`${url}/v1/memories`, { headers: { authorization: `Bearer ${process.env.TOKEN_LI}` } }).then((r) => r.json());
console.log(`li-si untouched at the origin: ${other.memories.map((m) => JSON.stringify(m.text)).join(", ")}`);
await Promise.all([phone.close(), laptop.close(), li.close()]);
