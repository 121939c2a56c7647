package dev.richter.agent.isolation;

import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.alter.Alter;
import net.sf.jsqlparser.statement.create.index.CreateIndex;
import net.sf.jsqlparser.statement.create.table.CreateTable;
import net.sf.jsqlparser.statement.delete.Delete;
import net.sf.jsqlparser.statement.drop.Drop;
import net.sf.jsqlparser.statement.execute.Execute;
import net.sf.jsqlparser.statement.insert.Insert;
import net.sf.jsqlparser.statement.merge.Merge;
import net.sf.jsqlparser.statement.select.AllTableColumns;
import net.sf.jsqlparser.statement.select.Join;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.WithItem;
import net.sf.jsqlparser.statement.truncate.Truncate;
import net.sf.jsqlparser.statement.update.Update;
import net.sf.jsqlparser.statement.upsert.Upsert;

/**
 * What one parsed SQL statement touches, read from its whole parse tree: every JSqlParser node reachable through
 * any field (collections, maps and arrays included), by reflection, not by a visitor, which sees only the shapes it
 * was written for (JSqlParser #2478: its table finder throws on a data-modifying {@code WITH}). So a table in a shape
 * nobody foresaw is still seen, and counted as written where a data-modifying node names it.
 * <ul>
 *   <li>{@link #tables}: every table node the statement names, except the names of its {@code WITH} items, the
 *       qualifiers of columns ({@code c} of {@code c.name}) and aliases named as tables ({@code v} of {@code DELETE v
 *       FROM visits v});</li>
 *   <li>{@link #qualified}: the columns qualified by a table or alias name;</li>
 *   <li>{@link #written}: the targets of every INSERT, UPDATE, DELETE, MERGE, UPSERT and TRUNCATE at any depth (a
 *       sub-statement, a {@code WITH} item), every table of MySQL's multi-table UPDATE and DELETE (which of them the
 *       statement changes is not read from it), the tables of {@code SELECT ... INTO}, and the target of CREATE TABLE
 *       / INDEX, ALTER and DROP;</li>
 *   <li>{@link #unknown}: why the statement may do more than its tables show: a procedure call ({@code CALL},
 *       {@code EXEC}) at any depth, or a top-level statement of a kind this class does not know.</li>
 * </ul>
 * Shared by the shadow rewrite ({@link SqlShadowPolicy}) and its independent re-check of the rewritten text.
 */
final class SqlEffects {
    /** The parser's package, as this jar names it (the extension relocates JSqlParser). */
    private static final String PARSER_PACKAGE = Statement.class.getName()
            .substring(0, Statement.class.getName().length() - "statement.Statement".length());

    final List<Table> tables = new ArrayList<Table>();
    final List<Column> qualified = new ArrayList<Column>();
    final List<Table> written = new ArrayList<Table>();
    final List<String> unknown = new ArrayList<String>();

    private SqlEffects() {}

    /**
     * @throws IllegalStateException when the parse tree cannot be read whole (a reflective access refused)
     */
    static SqlEffects of(Statement statement) {
        List<Object> nodes = new ArrayList<Object>();
        try {
            walk(statement, nodes, Collections.newSetFromMap(new IdentityHashMap<Object, Boolean>()));
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("its parse tree cannot be read whole (" + e + ")", e);
        }
        SqlEffects out = new SqlEffects();
        Set<String> withNames = new LinkedHashSet<String>();
        Map<String, Table> aliases = new LinkedHashMap<String, Table>();
        for (Object n : nodes) {
            if (n instanceof WithItem && ((WithItem) n).getAlias() != null) {
                withNames.add(lower(((WithItem) n).getAlias().getName()));
            } else if (n instanceof Table && ((Table) n).getAlias() != null) {
                aliases.put(lower(((Table) n).getAlias().getName()), (Table) n);
            }
        }
        Set<Table> written = Collections.newSetFromMap(new IdentityHashMap<Table, Boolean>());
        for (Object n : nodes) {
            if (n instanceof Table && ((Table) n).getName() != null && !isWithName((Table) n, withNames)
                    && !isAliasOfAnother((Table) n, aliases)) {
                out.tables.add((Table) n);
            } else if (n instanceof Column && ((Column) n).getTable() != null
                    && ((Column) n).getTable().getName() != null) {
                out.qualified.add((Column) n);
            } else if (n instanceof Execute) {
                out.unknown.add("it calls a procedure (" + ((Execute) n).getName() + "), whose writes are unknown");
            }
            for (Table t : targets(n)) {
                Table aliased = t.getSchemaName() == null ? aliases.get(lower(t.getName())) : null;
                Table target = aliased != null ? aliased : t;
                if (!isWithName(target, withNames) && written.add(target)) {
                    out.written.add(target);
                }
            }
        }
        if (!(statement instanceof Execute) && !knownKind(statement)) {
            out.unknown.add("a " + statement.getClass().getSimpleName() + " statement's effects are not read");
        }
        return out;
    }

    /** Lower case, identifier quotes removed. */
    static String lower(String name) {
        StringBuilder b = new StringBuilder(name.length());
        for (char c : name.trim().toCharArray()) {
            if (c != '"' && c != '`' && c != '[' && c != ']') {
                b.append(c);
            }
        }
        return b.toString().toLowerCase(Locale.ROOT);
    }

    private static boolean knownKind(Statement s) {
        return s instanceof Select || s instanceof Insert || s instanceof Update || s instanceof Delete
                || s instanceof Merge || s instanceof Upsert || s instanceof Truncate || s instanceof CreateTable
                || s instanceof CreateIndex || s instanceof Alter || s instanceof Drop;
    }

    /** True for a table node that names another's alias ({@code v} in {@code DELETE v FROM visits v}). */
    private static boolean isAliasOfAnother(Table t, Map<String, Table> aliases) {
        Table aliased = t.getSchemaName() == null ? aliases.get(lower(t.getName())) : null;
        return aliased != null && aliased != t;
    }

    private static boolean isWithName(Table t, Set<String> withNames) {
        return t.getSchemaName() == null && withNames.contains(lower(t.getName()));
    }

    /** The tables node {@code n} writes. */
    private static List<Table> targets(Object n) {
        List<Table> out = new ArrayList<Table>();
        if (n instanceof Insert) {
            out.add(((Insert) n).getTable());
        } else if (n instanceof Update) {
            out.add(((Update) n).getTable());
            joined(((Update) n).getStartJoins(), out);
        } else if (n instanceof Delete) {
            Delete d = (Delete) n;
            out.add(d.getTable());
            if (d.getTables() != null && !d.getTables().isEmpty()) {
                out.addAll(d.getTables());
                joined(d.getJoins(), out);
            }
        } else if (n instanceof Merge) {
            out.add(((Merge) n).getTable());
        } else if (n instanceof Upsert) {
            out.add(((Upsert) n).getTable());
        } else if (n instanceof Truncate) {
            out.add(((Truncate) n).getTable());
        } else if (n instanceof PlainSelect && ((PlainSelect) n).getIntoTables() != null) {
            out.addAll(((PlainSelect) n).getIntoTables());
        } else if (n instanceof CreateTable) {
            out.add(((CreateTable) n).getTable());
        } else if (n instanceof CreateIndex) {
            out.add(((CreateIndex) n).getTable());
        } else if (n instanceof Alter) {
            out.add(((Alter) n).getTable());
        } else if (n instanceof Drop) {
            out.add(((Drop) n).getName());
        }
        List<Table> named = new ArrayList<Table>();
        for (Table t : out) {
            if (t != null && t.getName() != null) {
                named.add(t);
            }
        }
        return named;
    }

    private static void joined(List<Join> joins, List<Table> out) {
        if (joins != null) {
            for (Join j : joins) {
                if (j.getRightItem() instanceof Table) {
                    out.add((Table) j.getRightItem());
                }
            }
        }
    }

    /**
     * Every parser node reachable from {@code node}, each once, in the order met; the parser's token tree, enum
     * constants and the qualifier of a column or of {@code t.*} (an alias, or a table named where it is read) are
     * not followed.
     */
    private static void walk(Object node, List<Object> out, Set<Object> seen) throws ReflectiveOperationException {
        if (node == null || !seen.add(node)) {
            return;
        }
        if (node instanceof Collection) {
            for (Object o : (Collection<?>) node) {
                walk(o, out, seen);
            }
            return;
        }
        if (node instanceof Map) {
            for (Map.Entry<?, ?> e : ((Map<?, ?>) node).entrySet()) {
                walk(e.getKey(), out, seen);
                walk(e.getValue(), out, seen);
            }
            return;
        }
        Class<?> type = node.getClass();
        if (type.isArray()) {
            if (!type.getComponentType().isPrimitive()) {
                for (int i = 0; i < Array.getLength(node); i++) {
                    walk(Array.get(node, i), out, seen);
                }
            }
            return;
        }
        String name = type.getName();
        if (!name.startsWith(PARSER_PACKAGE) || name.startsWith(PARSER_PACKAGE + "parser.") || type.isEnum()) {
            return;
        }
        out.add(node);
        boolean qualifier = node instanceof Column || node instanceof AllTableColumns;
        for (Class<?> k = type; k != null && k != Object.class; k = k.getSuperclass()) {
            for (Field f : k.getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers()) || f.getType().isPrimitive() || f.getType() == String.class
                        || qualifier && f.getType() == Table.class) {
                    continue;
                }
                f.setAccessible(true);
                walk(f.get(node), out, seen);
            }
        }
    }
}
