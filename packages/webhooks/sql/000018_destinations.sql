-- Destination kinds (issue 36): an endpoint delivers by HTTP POST (`webhook`, every endpoint so far)
-- or publishes to a broker (`amqp`, `nats`, `mqtt`). `url` holds the broker's URL without its
-- user info; `destination` the kind's own settings (exchange and routing key, subject, topic and
-- QoS); `credentials` the broker's user name and password, which the engine never returns (the
-- API shows a redacted form) and never logs. Constant defaults: catalogue-only changes.
alter table :SCHEMA.webhook_endpoints add column kind text not null default 'webhook';
alter table :SCHEMA.webhook_endpoints add column destination jsonb not null default '{}';
alter table :SCHEMA.webhook_endpoints add column credentials jsonb;
