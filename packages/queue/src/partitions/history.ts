// A partitioned queue's partition history: the value of its metadata key, and the partitions of
// every count it has had (README "Scaling past one master": "Growing the partition count"). The
// pure parts live in @respire/core-scripts (src/partition-layout.ts), shared with @respire/admin.
export { MAX_GENERATIONS, currentCount, extendsHistory, formatHistory, parseHistory, partitionSet } from '@respire/core-scripts/internal';
export type { Generation, PartitionHistory, PartitionSet } from '@respire/core-scripts/internal';
