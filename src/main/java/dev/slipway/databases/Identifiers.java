package dev.slipway.databases;

import java.security.SecureRandom;
import java.util.regex.Pattern;

/**
 * Names and passwords Slipway makes: never from request input. A database's name and its user are
 * {@code slw} + the 26 characters of its id (lowercase letters and digits only: no quoting surprises,
 * no {@code _} wildcard in MySQL grants, 29 characters fits both servers' limits). Every use checks
 * the shape again and quotes.
 */
final class Identifiers {
    private static final Pattern NAME = Pattern.compile("slw[0-9a-z]{26}");
    private static final String ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    private static final SecureRandom RANDOM = new SecureRandom();

    private Identifiers() {}

    /** The database and user name of a database id ({@code db_<26>}). */
    static String nameFor(String databaseId) {
        return checked("slw" + databaseId.substring(databaseId.indexOf('_') + 1));
    }

    static String checked(String name) {
        if (name == null || !NAME.matcher(name).matches()) throw new IllegalArgumentException("not a Slipway-made database name");
        return name;
    }

    /** A PostgreSQL identifier, quoted. */
    static String pg(String name) {
        return '"' + checked(name) + '"';
    }

    /** A MySQL/MariaDB identifier, quoted. */
    static String my(String name) {
        return '`' + checked(name) + '`';
    }

    /** 32 random letters and digits (about 190 bits). */
    static String password() {
        StringBuilder s = new StringBuilder(32);
        for (int i = 0; i < 32; i++) s.append(ALPHABET.charAt(RANDOM.nextInt(ALPHABET.length())));
        return s.toString();
    }
}
