import {
  DeviceChangeCreate,
  DeviceChangeRecord,
  DeviceChangeUpdate,
  MemberDeviceRecord,
  MemberDeviceUpdate,
} from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { collection, insertForMember, registerCollection, underMember } from '../http/collection.js';
import type { HubServices } from '../http/services.js';
import { memberRoute } from '../http/route.js';
import { unwrittenRecord } from '../http/unwritten.js';
import {
  deviceChangeRecord,
  findMemberDevice,
  insertDeviceChange,
  memberDeviceRecord,
  putMemberDevice,
} from '../identity/member-devices.js';
import { onMember } from './on-member.js';
import { MemberParams } from '../http/params.js';

/** The history of a member's device (each PUT of the device adds one); admins may edit it. */
export const deviceChanges = collection({
  ...underMember('member_device_changes', 'device/changes'),
  noun: 'Device change',
  record: DeviceChangeRecord,
  toRecord: deviceChangeRecord,
  list: {
    order: [
      ['createdAt', 'desc'],
      ['id', 'desc'],
    ],
  },
  create: {
    body: DeviceChangeCreate,
    insert: insertForMember(insertDeviceChange),
  },
  update: { body: DeviceChangeUpdate },
  remove: {},
  docs: {
    create: {
      summary: 'Add a device change',
      description: 'An entry in the history of the member’s device. Answers 201.',
      example: { name: 'Old phone', userAgent: 'MakerspaceApp/1.9' },
    },
    update: {
      summary: 'Change a device change',
      example: { name: 'Ada’s old phone', lockVersion: 1 },
    },
  },
});

/** The member's device: every field null while none is known; the member (or an admin) sets it. */
const unknownDevice = unwrittenRecord(MemberDeviceRecord);

export function memberDeviceRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) => {
    memberRoute(
      app,
      'get',
      '/members/:memberId/device',
      {
        tags: ['members'],
        summary: 'Get a member’s device',
        description:
          'The device the member uses the app on; while none is known, an object whose fields are null but `member` (as Fabman answers).',
        params: MemberParams,
        response: { 200: unknownDevice.schema },
      },
      onMember(ctx.db, async (member) => {
        const row = await findMemberDevice(ctx.db, member.id);
        return row ? memberDeviceRecord(row) : unknownDevice.of(member.id);
      }),
    );

    memberRoute(
      app,
      'put',
      '/members/:memberId/device',
      {
        tags: ['members'],
        summary: 'Set a member’s device',
        description:
          'The member (or an admin) sets it; fields left out keep their value. Each write adds a device change.',
        example: { name: 'Ada’s phone', details: 'Android 15', userAgent: 'MakerspaceApp/2.1' },
        params: MemberParams,
        body: MemberDeviceUpdate,
        response: { 200: MemberDeviceRecord },
      },
      onMember(ctx.db, async (member, request, caller) => {
        const at = ctx.clock.now().toISOString();
        const row = await ctx.events.transaction((trx) =>
          putMemberDevice(trx, member, request.body, { at, by: caller.memberId }),
        );
        return memberDeviceRecord(row);
      }),
    );

    registerCollection(app, ctx, deviceChanges);
  };
}
