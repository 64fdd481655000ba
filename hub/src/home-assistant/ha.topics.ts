/**
 * Home Assistant MQTT discovery (https://www.home-assistant.io/integrations/mqtt/#mqtt-discovery):
 * topic names, the retained discovery configs, state payloads and command parsing, as pure
 * functions. Each door is a `lock`, each machine a `switch`.
 */

export interface HaTopics {
  /** Discovery prefix Home Assistant listens on ("homeassistant" by default). */
  discoveryPrefix: string;
  /** Prefix of the hub's own state, availability and command topics ("makerspace"). */
  base: string;
}

/** A resource as Home Assistant sees it. */
export interface HaResource {
  id: number;
  name: string;
  controlType: string;
}

export type HaComponent = 'lock' | 'switch';

export const HUB_ONLINE = 'online';
export const HUB_OFFLINE = 'offline';

/** Doors (control type "door") are locks; every other resource is a switch. */
export function componentOf(resource: Pick<HaResource, 'controlType'>): HaComponent {
  return resource.controlType === 'door' ? 'lock' : 'switch';
}

export function hubStatusTopic(t: HaTopics): string {
  return `${t.base}/hub/status`;
}

export function resourceTopics(t: HaTopics, resourceId: number) {
  const root = `${t.base}/resource/${resourceId}`;
  return { state: `${root}/state`, availability: `${root}/availability`, command: `${root}/set` };
}

/** The retained config topic; an empty retained message there removes the entity. */
export function discoveryTopic(t: HaTopics, component: HaComponent, resourceId: number): string {
  return `${t.discoveryPrefix}/${component}/makerspace/resource_${resourceId}/config`;
}

/** Wildcard subscription for every resource's command topic. */
export function commandSubscription(t: HaTopics): string {
  return `${t.base}/resource/+/set`;
}

/** The resource id of a command topic, or null for any other topic. */
export function resourceOfCommandTopic(t: HaTopics, topic: string): number | null {
  const prefix = `${t.base}/resource/`;
  if (!topic.startsWith(prefix) || !topic.endsWith('/set')) return null;
  const id = topic.slice(prefix.length, -'/set'.length);
  return /^[1-9]\d{0,15}$/.test(id) ? Number(id) : null;
}

/**
 * The discovery config. Available only while both the hub (its retained status with a last
 * will) and the resource's bridge are online (`availability_mode: all`).
 */
export function discoveryConfig(t: HaTopics, resource: HaResource): Record<string, unknown> {
  const topics = resourceTopics(t, resource.id);
  const component = componentOf(resource);
  const common = {
    name: null,
    unique_id: `makerspace_resource_${resource.id}`,
    object_id: `makerspace_resource_${resource.id}`,
    command_topic: topics.command,
    state_topic: topics.state,
    availability: [
      { topic: hubStatusTopic(t), payload_available: HUB_ONLINE, payload_not_available: HUB_OFFLINE },
      { topic: topics.availability, payload_available: HUB_ONLINE, payload_not_available: HUB_OFFLINE },
    ],
    availability_mode: 'all',
    optimistic: false,
    retain: false,
    device: {
      identifiers: [`makerspace_resource_${resource.id}`],
      name: resource.name,
      manufacturer: 'Makerspace hub',
      model: component === 'lock' ? 'Door' : 'Machine',
    },
  };
  return component === 'lock'
    ? {
        ...common,
        payload_lock: 'LOCK',
        payload_unlock: 'UNLOCK',
        state_locked: 'LOCKED',
        state_unlocked: 'UNLOCKED',
      }
    : { ...common, payload_on: 'ON', payload_off: 'OFF', state_on: 'ON', state_off: 'OFF' };
}

/** The state payload for a relay state (a door's relay on means unlocked). */
export function statePayload(component: HaComponent, relay: 'on' | 'off'): string {
  if (component === 'lock') return relay === 'on' ? 'UNLOCKED' : 'LOCKED';
  return relay === 'on' ? 'ON' : 'OFF';
}

/** What a command asks for: switch on (unlock), switch off, or lock (a door locks by itself). */
export type HaCommand = 'switchOn' | 'switchOff' | 'lock';

/** Parses a command payload for a component; an unknown payload is an error with the accepted ones. */
export function parseCommand(component: HaComponent, payload: string): HaCommand | { error: string } {
  const text = payload.trim();
  const accepted: Record<string, HaCommand> =
    component === 'lock' ? { UNLOCK: 'switchOn', LOCK: 'lock' } : { ON: 'switchOn', OFF: 'switchOff' };
  const command = Object.hasOwn(accepted, text) ? accepted[text] : undefined;
  if (command) return command;
  return {
    error: `unknown ${component} command ${JSON.stringify(text.slice(0, 40))}; expected ${Object.keys(accepted).join(' or ')}`,
  };
}
