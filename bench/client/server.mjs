// The benchmark's origin: a tiny JSON answer on 127.0.0.1, port 0, in its own process so the client
// process measures only the client. Prints its port on stdout, exits when its parent does.
import { createServer } from 'node:http';

const body = Buffer.from('{"ok":true}');
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
    res.end(body);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${server.address().port}\n`);
});
process.on('disconnect', () => process.exit(0));
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
