// An independent reader of `ipcperf paths --otlp`: the protobufjs schema of
// opentelemetry-proto that npm's @opentelemetry/otlp-transformer 0.52.1
// ships decodes the file and verifies it, then the traces are checked.
//
//   node otlp-check.js FILE N TRANSPORT T0_NS T1_NS
//
// FILE must be an ExportTraceServiceRequest in OTLP/JSON (hex ids, 64-bit
// integers as decimal strings, kinds as numbers) that survives a round trip
// through the protobuf binary form unchanged (a misspelt key would not), with
// N traces, each the chain client(CLIENT) -> proxy(SERVER) -> proxy(CLIENT)
// -> backend(SERVER) on TRANSPORT, all within [T0_NS, T1_NS] of the wall
// clock, each span within its parent. Prints "otlp-check: ok ..." or one line of what is wrong, exit 1.
'use strict';
const fs = require('fs');
const path = require('path');
const util = require('util');

const modules = process.env.OTLP_NODE_MODULES;
const root = require(path.resolve(modules, '@opentelemetry/otlp-transformer/build/src/generated/root.js'));
const T = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

function fail(msg) {
	console.log('otlp-check: ' + msg);
	process.exit(1);
}

const [file, nArg, transport, t0Arg, t1Arg] = process.argv.slice(2);
const N = Number(nArg), T0 = BigInt(t0Arg), T1 = BigInt(t1Arg);
const doc = JSON.parse(fs.readFileSync(file, 'utf8'));

const ID = { traceId: 32, spanId: 16, parentSpanId: 16 };
// o with the value of each id field (ID) given by f(key, value), the rest walked alike.
function mapIds(o, f) {
	if (Array.isArray(o))
		return o.map((x) => mapIds(x, f));
	if (o === null || typeof o !== 'object')
		return o;
	const r = {};
	for (const [k, v] of Object.entries(o))
		r[k] = k in ID ? f(k, v) : mapIds(v, f);
	return r;
}
// Hex ids into bytes, as OTLP/JSON means them (protobuf's JSON would read base64).
const toBytes = (o) => mapIds(o, (k, v) => {
	if (typeof v !== 'string' || !new RegExp(`^[0-9a-f]{${ID[k]}}$`).test(v))
		fail(`${k} ${JSON.stringify(v)} is not ${ID[k]} hex digits`);
	return Buffer.from(v, 'hex');
});
// And back, from what the schema decodes (base64).
const toHex = (o) => mapIds(o, (k, v) => Buffer.from(v, 'base64').toString('hex'));

const msg = T.fromObject(toBytes(doc));
const err = T.verify(msg);
if (err)
	fail('the schema refuses it: ' + err);
const back = toHex(T.toObject(T.decode(T.encode(msg).finish()),
			      { longs: String, enums: Number, bytes: String }));
if (!util.isDeepStrictEqual(back, doc))
	fail('it does not survive a round trip through the schema (a key or a type it does not know)');

// The traces, span by span.
const spans = new Map(), traces = new Map(), names = new Set(), pids = new Set();
function attrs(list) {
	const a = {};
	for (const kv of list || [])
		a[kv.key] = kv.value.stringValue !== undefined ? kv.value.stringValue : kv.value.intValue;
	return a;
}
for (const rs of doc.resourceSpans) {
	const ra = attrs(rs.resource.attributes);
	if (!ra['service.name'] || !/^[0-9]+$/.test(ra['process.pid'] || ''))
		fail('a resource without service.name or process.pid: ' + JSON.stringify(ra));
	if (pids.has(ra['process.pid']))
		fail('two resources of process ' + ra['process.pid']);
	pids.add(ra['process.pid']);
	names.add(ra['service.name']);
	for (const ss of rs.scopeSpans) {
		for (const s of ss.spans) {
			if (spans.has(s.spanId))
				fail('span id ' + s.spanId + ' twice');
			const st = BigInt(s.startTimeUnixNano), en = BigInt(s.endTimeUnixNano);
			if (typeof s.startTimeUnixNano !== 'string' || st > en || st < T0 || en > T1)
				fail(`span ${s.spanId} from ${s.startTimeUnixNano} to ${s.endTimeUnixNano}, outside the run [${T0}, ${T1}]`);
			const x = { ...s, service: ra['service.name'], a: attrs(s.attributes) };
			for (const k of ['thread.id', 'network.transport', 'ipcperf.fd', 'ipcperf.bytes'])
				if (x.a[k] === undefined)
					fail(`span ${s.spanId} has no ${k}`);
			if (x.a['network.transport'] !== transport)
				fail(`span ${s.spanId} on ${x.a['network.transport']}, want ${transport}`);
			if (s.kind === 2 && x.a['ipcperf.self_ns'] === undefined && x.a['ipcperf.cpu_ns'] === undefined)
				fail(`server span ${s.spanId} has no self time`);
			spans.set(s.spanId, x);
			if (!traces.has(s.traceId))
				traces.set(s.traceId, []);
			traces.get(s.traceId).push(x);
		}
	}
}
if (doc.resourceSpans.length !== 3 || [...names].sort().join() !== 'backend,client,proxy')
	fail(`resources ${doc.resourceSpans.length}: ${[...names].join(', ')}; want client, proxy, backend`);
if (traces.size !== N)
	fail(`${traces.size} traces, want ${N}`);
const want = [['client', 3], ['proxy', 2], ['proxy', 3], ['backend', 2]];
for (const [id, list] of traces) {
	const root = list.filter(s => !s.parentSpanId);
	const chain = [];
	for (let s = root.length === 1 ? root[0] : null; s; s = list.find(c => c.parentSpanId === s.spanId))
		chain.push(s);
	const got = chain.map(s => [s.service, s.kind]);
	if (list.length !== 4 || !util.isDeepStrictEqual(got, want))
		fail(`trace ${id}: ${JSON.stringify(list.map(s => [s.service, s.kind, s.spanId, s.parentSpanId || null]))}`);
	// A child lies in its parent: a server's span in its caller's exchange, an exchange in the span it serves.
	for (let i = 1; i < 4; i++)
		if (BigInt(chain[i].startTimeUnixNano) < BigInt(chain[i - 1].startTimeUnixNano) ||
		    BigInt(chain[i].endTimeUnixNano) > BigInt(chain[i - 1].endTimeUnixNano))
			fail(`trace ${id}: span ${chain[i].spanId} is not within its parent ${chain[i - 1].spanId}`);
}
console.log(`otlp-check: ok: ${traces.size} traces, ${spans.size} spans, resources ${[...names].join(', ')}`);
