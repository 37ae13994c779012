/* libroce: the RoCEv2 wire model. Include this for everything. */
#ifndef ROCE_ROCE_H
#define ROCE_ROCE_H

#include "roce/aeth.h"
#include "roce/build.h"
#include "roce/check.h"
#include "roce/crc32.h"
#include "roce/flow.h"
#include "roce/gid.h"
#include "roce/hdr.h"
#include "roce/icrc.h"
#include "roce/mad.h"
#include "roce/mcast.h"
#include "roce/opcode.h"
#include "roce/packet.h"
#include "roce/rules.h"
#include "roce/transport.h"

#endif
