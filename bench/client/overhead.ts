// What the @surety/fetch layer itself costs per call, with the network taken out: a transport that
// answers at once, called through createFetch and called directly. An upper bound for the default client:
// with a custom transport every attempt also gets an AbortController and a timer, which the client's own
// Agent makes unnecessary in the common case.
//
//   npm run build && node --import tsx bench/client/overhead.ts [calls] [rounds]
import { createFetch } from '@surety/fetch';

const calls = Number(process.argv[2] ?? 200_000);
const rounds = Number(process.argv[3] ?? 5);
const response = new Response(null);
const transport = async () => response;
const surety = createFetch({ transport });
const url = 'http://127.0.0.1:8080/thing';

const cpuPerCall = async (once: () => Promise<unknown>) => {
  const cpu = process.cpuUsage();
  for (let i = 0; i < calls; i++) await once();
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / calls;
};

const layer: number[] = [];
const direct: number[] = [];
for (let round = 0; round < rounds; round++) {
  layer.push(await cpuPerCall(() => surety(url)));
  direct.push(await cpuPerCall(transport));
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(
  `node ${process.version}, ${rounds} rounds x ${calls} calls: @surety/fetch layer ${median(layer).toFixed(2)} µs CPU/call ` +
    `(rounds ${layer.map((x) => x.toFixed(2)).join(' / ')}), transport alone ${median(direct).toFixed(2)} µs`,
);
