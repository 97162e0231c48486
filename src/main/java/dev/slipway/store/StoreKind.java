package dev.slipway.store;

public enum StoreKind { H2, POSTGRES }
