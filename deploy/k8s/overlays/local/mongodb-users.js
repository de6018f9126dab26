// Run by the Job mongodb-users (mongosh, as the administrator, straight to the one member): initiates
// the replica set rs0 if it is not yet, waits for the primary, then gives each process its own user
// with readWrite on its own database only, from its MONGO_URL (the variables MONGO_URL_<PROCESS>, each
// from the process's Secret helpdesk-mongo-<name>). Idempotent: an existing user gets the URL's
// password and role again.
const member = 'mongodb-0.mongodb.helpdesk-infra.svc.cluster.local:27017';
try {
  rs.status();
} catch (e) {
  print(`initiating rs0 (${e.message})`);
  rs.initiate({ _id: 'rs0', members: [{ _id: 0, host: member }] });
}
while (!db.hello().isWritablePrimary) sleep(1000);
const admin = db.getSiblingDB('admin');
for (const [key, value] of Object.entries(process.env)) {
  if (!key.startsWith('MONGO_URL_')) continue;
  const url = new URL(value);
  const user = decodeURIComponent(url.username);
  const pwd = decodeURIComponent(url.password);
  const database = decodeURIComponent(url.pathname.slice(1));
  if (!user || !pwd || !database) throw new Error(`${key}: needs a user, a password and a database`);
  const roles = [{ role: 'readWrite', db: database }];
  if (admin.getUser(user)) admin.updateUser(user, { pwd, roles });
  else admin.createUser({ user, pwd, roles });
  print(`${user}: readWrite on ${database}`);
}
