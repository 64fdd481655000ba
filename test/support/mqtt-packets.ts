/** A minimal MQTT 3.1.1 CONNECT (MQTT-3.1): a client that then says nothing, not even PINGREQ. */
export function connectPacket(
  clientId: string,
  username: string,
  password: string,
  keepalive: number,
): Buffer {
  const str = (s: string) => {
    const b = Buffer.from(s, 'utf8');
    return Buffer.concat([Buffer.from([b.length >> 8, b.length & 0xff]), b]);
  };
  const variable = Buffer.concat([str('MQTT'), Buffer.from([4, 0xc2, keepalive >> 8, keepalive & 0xff])]);
  const body = Buffer.concat([variable, str(clientId), str(username), str(password)]);
  const length: number[] = [];
  let n = body.length;
  do {
    let byte = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) byte |= 0x80;
    length.push(byte);
  } while (n > 0);
  return Buffer.concat([Buffer.from([0x10, ...length]), body]);
}
