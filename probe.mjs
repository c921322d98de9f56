import { PGlite } from '@electric-sql/pglite';
let t0 = Date.now();
const db = await PGlite.create('memory://');
console.log('create1 ms', Date.now() - t0);
t0 = Date.now();
const db2 = await PGlite.create('memory://');
console.log('create2 ms', Date.now() - t0);
await db.exec('create table x(a int)');
t0 = Date.now();
if (db.clone) { const c = await db.clone(); console.log('clone ms', Date.now() - t0, (await c.query('select count(*)::int from x')).rows); }
t0 = Date.now();
for (let i=0;i<2000;i++) await db.query('insert into x values ($1)', [i]);
console.log('2000 inserts ms', Date.now() - t0);
console.log(process.memoryUsage().rss/1e6);
