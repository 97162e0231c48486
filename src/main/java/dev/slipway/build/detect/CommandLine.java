package dev.slipway.build.detect;

import dev.slipway.build.Artifact;
import dev.slipway.build.BuildException;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Splits a command line (a Procfile {@code web:} line, an npm start script) into argv the way a POSIX
 * shell would for simple commands, without running a shell: whitespace separates words; single quotes
 * are literal; double quotes keep {@code \\ \" \$ \`} escapes; a backslash outside quotes escapes the
 * next character; {@code #} at the start of a word begins a comment.
 *
 * <p>Only {@code $PORT} / {@code ${PORT}} is expanded, into the {@code ${PORT}} token that the runtime
 * replaces (see {@link Artifact#startCommand()}). Any other variable, command substitution, pipes,
 * redirections, {@code &&} or {@code ;} need a shell and are refused with a clear error, as is a
 * leading {@code NAME=value} assignment (set such values as project environment variables instead).
 * Globs are not expanded.
 */
public final class CommandLine {
    public static final String PORT_TOKEN = "${PORT}";
    private static final Pattern NAME_START = Pattern.compile("[A-Za-z_]");
    private static final Pattern ASSIGNMENT = Pattern.compile("^[A-Za-z_][A-Za-z0-9_]*=.*", Pattern.DOTALL);
    private static final String SHELL_OPERATORS = "|&;<>()`";

    private CommandLine() {}

    /** @throws BuildException naming what is not supported */
    public static List<String> split(String line) {
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        boolean inWord = false;
        int i = 0;
        int n = line.length();
        while (i < n) {
            char c = line.charAt(i);
            if (Character.isWhitespace(c)) {
                if (inWord) {
                    words.add(word.toString());
                    word.setLength(0);
                    inWord = false;
                }
                i++;
            } else if (c == '#' && !inWord) {
                break;
            } else if (c == '\'') {
                int end = line.indexOf('\'', i + 1);
                if (end < 0) throw unsupported(line, "an unterminated single quote");
                word.append(line, i + 1, end);
                inWord = true;
                i = end + 1;
            } else if (c == '"') {
                i = doubleQuoted(line, i + 1, word);
                inWord = true;
            } else if (c == '\\') {
                if (i + 1 >= n) throw unsupported(line, "a trailing backslash");
                word.append(line.charAt(i + 1));
                inWord = true;
                i += 2;
            } else if (c == '$') {
                i = expand(line, i, word);
                inWord = true;
            } else if (SHELL_OPERATORS.indexOf(c) >= 0) {
                throw unsupported(line, "the shell operator '" + c + "'");
            } else {
                word.append(c);
                inWord = true;
                i++;
            }
        }
        if (inWord) words.add(word.toString());
        if (words.isEmpty()) throw new BuildException("the start command is empty");
        if (ASSIGNMENT.matcher(words.get(0)).matches()) {
            String name = words.get(0).substring(0, words.get(0).indexOf('='));
            throw new BuildException("start command \"" + line + "\" begins with the assignment " + name
                    + "=…, which needs a shell; set " + name + " as a project environment variable instead");
        }
        return List.copyOf(words);
    }

    /** Reads a double-quoted string starting after its opening quote; returns the index after the closing one. */
    private static int doubleQuoted(String line, int i, StringBuilder word) {
        int n = line.length();
        while (i < n) {
            char c = line.charAt(i);
            if (c == '"') return i + 1;
            if (c == '\\' && i + 1 < n && "\\\"$`".indexOf(line.charAt(i + 1)) >= 0) {
                word.append(line.charAt(i + 1));
                i += 2;
            } else if (c == '$') {
                i = expand(line, i, word);
            } else if (c == '`') {
                throw unsupported(line, "command substitution (`…`)");
            } else {
                word.append(c);
                i++;
            }
        }
        throw unsupported(line, "an unterminated double quote");
    }

    /** Expands the {@code $…} at {@code i}; returns the index after it. */
    private static int expand(String line, int i, StringBuilder word) {
        int n = line.length();
        if (i + 1 >= n) {
            word.append('$');
            return i + 1;
        }
        char next = line.charAt(i + 1);
        String name;
        int after;
        if (next == '{') {
            int close = line.indexOf('}', i + 2);
            if (close < 0) throw unsupported(line, "an unterminated ${");
            name = line.substring(i + 2, close);
            after = close + 1;
            if (!name.matches("[A-Za-z_][A-Za-z0-9_]*")) throw unsupported(line, "the expansion ${" + name + "}");
        } else if (next == '(') {
            throw unsupported(line, "command substitution ($(…))");
        } else if (NAME_START.matcher(String.valueOf(next)).matches()) {
            int end = i + 1;
            while (end < n && (Character.isLetterOrDigit(line.charAt(end)) || line.charAt(end) == '_')
                    && line.charAt(end) < 128) end++;
            name = line.substring(i + 1, end);
            after = end;
        } else {
            word.append('$');
            return i + 1;
        }
        if (!name.equals("PORT")) {
            throw new BuildException("start command \"" + line + "\" uses $" + name + "; only $PORT is expanded "
                    + "(there is no shell): read " + name + " from the environment in the app instead");
        }
        word.append(PORT_TOKEN);
        return after;
    }

    private static BuildException unsupported(String line, String what) {
        return new BuildException("start command \"" + line + "\" uses " + what
                + ", which needs a shell; Slipway runs start commands without one (write a plain command, or a script file)");
    }
}
