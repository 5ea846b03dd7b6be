package checker

const maxTime = int64(^uint64(0) >> 1)
